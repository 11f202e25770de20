-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), k STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, CONCAT(SUBSTRING(url FROM 2 FOR 2), '#', user_id), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, CONCAT(SUBSTRING(url FROM 2 FOR 2), '#', user_id);
