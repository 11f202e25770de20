-- data: g00215
-- partitions: 1
-- mode: streaming
-- known-difference: DOUBLE SUM/AVG/VAR/STDDEV: last digits, or cancellation of small terms (another order of additions)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 SMALLINT, a0 SMALLINT, a1 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, SUM(c1), VAR_SAMP(c0)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '30' SECOND))
GROUP BY window_start, window_end, c1;
