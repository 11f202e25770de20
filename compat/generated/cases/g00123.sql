-- data: g00123
-- partitions: 1
-- mode: streaming
-- known-difference: SUM/AVG of FLOAT: last bits (known)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 SMALLINT, a0 FLOAT, a1 BIGINT, a2 SMALLINT, a3 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, AVG(c0) FILTER (WHERE c0 < 3.3), COUNT(c1), VAR_SAMP(c1), SUM(c0)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c1;
