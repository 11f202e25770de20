-- data: g00192
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 STRING, c1 SMALLINT, a0 FLOAT, a1 STRING, a2 BIGINT, a3 BIGINT, a4 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, c1, AVG(DISTINCT c0), MIN(c2), COUNT(c1), COUNT(DISTINCT c3), MAX(c2) FILTER (WHERE c1 >= 1)
FROM TABLE(SESSION(TABLE events PARTITION BY (c2, c1), DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE c1 BETWEEN -10 AND 1000
GROUP BY window_start, window_end, c2, c1;
