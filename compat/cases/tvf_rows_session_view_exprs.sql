-- data: clicks
-- partitions: 1
-- mode: streaming
CREATE TABLE results (user_id STRING, url STRING, amount INT, ts TIMESTAMP(3), window_start TIMESTAMP(3), window_end TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE VIEW paid AS SELECT user_id, url, amount, ts FROM events WHERE amount > 0;
INSERT INTO results SELECT user_id, UPPER(url), amount * 2, ts, window_start, window_end
FROM TABLE(SESSION(TABLE paid PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '2' SECOND));
