-- data: g00129
-- partitions: 3
-- mode: streaming
-- known-difference: DOUBLE SUM/AVG/VAR/STDDEV: last digits, or cancellation of small terms (another order of additions)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 TINYINT, a0 DOUBLE, a1 TINYINT, a2 TINYINT, a3 BIGINT, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, VAR_SAMP(c5), VAR_SAMP(c2), STDDEV_SAMP(DISTINCT c2) FILTER (WHERE c2 BETWEEN -10 AND 1000), SUM(DISTINCT c4) FILTER (WHERE c0 = 'b'), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND))
GROUP BY window_start, window_end, c2
HAVING MAX(c4) IS NOT NULL;
