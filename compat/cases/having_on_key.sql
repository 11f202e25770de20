-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, user_id, COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, user_id
HAVING user_id IS NOT NULL AND COUNT(DISTINCT url) >= 2;
