-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, share DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, user_id, CAST(COUNT(*) AS DOUBLE) / 10
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, user_id;
