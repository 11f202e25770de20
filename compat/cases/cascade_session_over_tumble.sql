-- data: clicks
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, pieces BIGINT, clicks BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW per_user AS SELECT window_time AS rowtime, user_id, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end, window_time, user_id;
INSERT INTO results SELECT window_start, window_end, user_id, COUNT(*), SUM(c)
FROM TABLE(SESSION(TABLE per_user PARTITION BY user_id, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, user_id;
