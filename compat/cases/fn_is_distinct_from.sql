-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), n BIGINT, m BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COUNT(*), COUNT(user_id)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE user_id IS DISTINCT FROM 'a'
GROUP BY window_start, window_end;
