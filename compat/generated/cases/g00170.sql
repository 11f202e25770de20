-- data: g00170
-- partitions: 1
-- mode: streaming
-- known-difference: DOUBLE SUM/AVG/VAR/STDDEV: last digits, or cancellation of small terms (another order of additions)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 SMALLINT, c0 STRING, a0 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, c0, VAR_SAMP(c1)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))
WHERE c0 IS NOT NULL
GROUP BY window_start, window_end, c3, c0;
