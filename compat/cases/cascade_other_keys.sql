-- data: clicks
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), url STRING, users BIGINT, clicks BIGINT, top BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW per_user_url AS SELECT window_time AS t, user_id, url, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY window_start, window_end, window_time, user_id, url;
INSERT INTO results SELECT window_start, window_end, url, COUNT(DISTINCT user_id), SUM(c), MAX(c)
FROM TABLE(TUMBLE(TABLE per_user_url, DESCRIPTOR(t), INTERVAL '15' SECOND))
GROUP BY window_start, window_end, url;
