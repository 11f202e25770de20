-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE (url LIKE '/p/%' AND amount BETWEEN 0 AND 50) OR user_id IN ('a', 'b')
GROUP BY window_start, window_end;
