-- data: clicks
-- partitions: 3
CREATE TABLE results (user_id STRING, url STRING, ts TIMESTAMP(3), window_start TIMESTAMP(3), window_end TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT user_id, url, ts, window_start, window_end
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND));
