-- data: clicks
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE VIEW positive AS SELECT * FROM events WHERE amount >= 0;
INSERT INTO results SELECT window_start, window_end, user_id, COUNT(*)
FROM TABLE(SESSION(TABLE positive PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, user_id;
