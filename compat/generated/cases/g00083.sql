-- data: g00083
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c4 TINYINT, c2 INT, a0 INT, a1 SMALLINT, a2 TINYINT, a3 DECIMAL(38, 3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c4, c2, SUM(DISTINCT c2), VAR_SAMP(c1), SUM(DISTINCT c4), SUM(c3)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c4, c2;
