-- data: g00052
-- partitions: 2
-- mode: streaming
-- known-difference: DOUBLE SUM/AVG/VAR/STDDEV: last digits, or cancellation of small terms (another order of additions)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 STRING, a0 TINYINT, a1 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, STDDEV_SAMP(c0), SUM(c3)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end, c1;
