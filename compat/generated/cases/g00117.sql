-- data: g00117
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 BIGINT, a0 BIGINT, a1 BIGINT, a2 INT, a3 BIGINT, a4 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, COUNT(DISTINCT c0) FILTER (WHERE c0 = 'A'), VAR_SAMP(c2), VAR_SAMP(c1) FILTER (WHERE c1 > 100), COUNT(c1) FILTER (WHERE c2 >= 5), MAX(c1)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end, c2;
