-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), who STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COALESCE(user_id, 'anon'), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, COALESCE(user_id, 'anon');
