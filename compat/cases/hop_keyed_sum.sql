-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, s INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, user_id, SUM(amount)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '20' SECOND))
GROUP BY window_start, window_end, user_id;
