-- data: g00013
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 INT, a0 FLOAT, a1 INT, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, SUM(c0), MIN(c3), MAX(c2)
FROM TABLE(SESSION(TABLE events PARTITION BY c3, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c3
HAVING MIN(c3) < 10;
