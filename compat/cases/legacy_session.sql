-- data: clicks
-- partitions: 3
-- mode: streaming
CREATE TABLE results (ws TIMESTAMP(3), we TIMESTAMP(3), user_id STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT SESSION_START(ts, INTERVAL '3' SECOND), SESSION_END(ts, INTERVAL '3' SECOND), user_id, COUNT(*)
FROM events
GROUP BY SESSION(ts, INTERVAL '3' SECOND), user_id;
