-- data: clicks
-- partitions: 1
-- mode: streaming
CREATE TABLE results (user_id STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT user_id, window_start, window_end
FROM TABLE(SESSION(TABLE events PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '3' SECOND));
