-- data: clicks
-- partitions: 1
-- mode: streaming
CREATE TABLE results (user_id STRING, url STRING, amount INT, price DOUBLE, flag BOOLEAN, ts TIMESTAMP(3), window_start TIMESTAMP(3), window_end TIMESTAMP(3), window_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT *
FROM TABLE(SESSION(TABLE events PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '2' SECOND)) WHERE amount > 0;
