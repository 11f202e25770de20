-- data: g00100
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 STRING, a0 INT, a1 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, AVG(DISTINCT c2), MAX(c0)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c1;
