-- data: clicks
-- partitions: 2
CREATE TABLE results (user_id STRING, url STRING, amount INT, price DOUBLE, flag BOOLEAN, ts TIMESTAMP(3), window_start TIMESTAMP(3), window_end TIMESTAMP(3), window_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT * FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND));
