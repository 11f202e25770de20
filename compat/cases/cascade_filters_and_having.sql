-- data: clicks
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, busy BIGINT, amount_max INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW per_user AS SELECT window_end AS first_end, window_time AS rowtime, user_id, COUNT(*) AS c, MAX(amount) AS m FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '4' SECOND)) WHERE url <> '/cart' GROUP BY window_start, window_end, window_time, user_id HAVING COUNT(*) > 0;
INSERT INTO results SELECT window_start, window_end, user_id, COUNT(*), MAX(m)
FROM TABLE(CUMULATE(TABLE per_user, DESCRIPTOR(rowtime), INTERVAL '8' SECOND, INTERVAL '24' SECOND))
WHERE c >= 1 AND first_end > TIMESTAMP '2025-09-14 12:00:03' AND user_id IS NOT NULL
GROUP BY window_start, window_end, user_id
HAVING SUM(c) > 1;
