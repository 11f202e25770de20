-- data: g00300
-- partitions: 1
-- mode: streaming
-- known-difference: DOUBLE SUM/AVG/VAR/STDDEV: last digits, or cancellation of small terms (another order of additions)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 STRING, a0 DOUBLE, a1 BIGINT, a2 DOUBLE, a3 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, MIN(c0) FILTER (WHERE c5 = 'b'), COUNT(DISTINCT c2), STDDEV_POP(c1), STDDEV_POP(c2)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c3;
