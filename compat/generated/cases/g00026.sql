-- data: g00026
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DECIMAL(38, 6), a1 DECIMAL(38, 6), a2 BIGINT, a3 DECIMAL(38, 1), a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, AVG(c1), VAR_SAMP(c1), COUNT(DISTINCT c1), SUM(DISTINCT c1) FILTER (WHERE c2), COUNT(c1)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end;
