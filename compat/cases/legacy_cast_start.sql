-- data: epoch
-- partitions: 2
CREATE TABLE results (s STRING, k STRING, total INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT CAST(TUMBLE_START(ts, INTERVAL '10' SECOND) AS STRING), k, SUM(v)
FROM events
GROUP BY TUMBLE(ts, INTERVAL '10' SECOND), k;
