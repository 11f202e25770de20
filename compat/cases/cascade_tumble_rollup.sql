-- data: clicks
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, clicks BIGINT, biggest INT, minutes BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW per_user AS SELECT window_start AS ws, window_end AS we, window_time AS rowtime, user_id, COUNT(*) AS c, SUM(amount) AS s FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, window_time, user_id;
INSERT INTO results SELECT window_start, window_end, user_id, SUM(c), MAX(s), COUNT(*)
FROM TABLE(TUMBLE(TABLE per_user, DESCRIPTOR(rowtime), INTERVAL '20' SECOND))
GROUP BY window_start, window_end, user_id;
