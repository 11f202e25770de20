-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), l STRING, n INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, LOWER(user_id), SUM(CHAR_LENGTH(url))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, LOWER(user_id);
