-- data: clicks
-- partitions: 3
CREATE TABLE results (ws TIMESTAMP(3), we TIMESTAMP(3), user_id STRING, n BIGINT, s INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT TUMBLE_START(ts, INTERVAL '10' SECOND), TUMBLE_END(ts, INTERVAL '10' SECOND), user_id, COUNT(*), SUM(amount)
FROM events
GROUP BY TUMBLE(ts, INTERVAL '10' SECOND), user_id;
