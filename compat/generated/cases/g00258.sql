-- data: g00258
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 INT, c1 STRING, a0 INT, a1 INT, a2 INT, a3 INT, a4 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, c1, SUM(c0), AVG(DISTINCT c0), VAR_POP(c0) FILTER (WHERE c1 IS NOT NULL), MAX(c0), SUM(DISTINCT c0)
FROM TABLE(SESSION(TABLE events PARTITION BY (c0, c1), DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c0, c1;
