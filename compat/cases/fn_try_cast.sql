-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, as_int INT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, user_id, TRY_CAST(SUBSTRING(url FROM 4) AS INT), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
GROUP BY window_start, window_end, user_id, TRY_CAST(SUBSTRING(url FROM 4) AS INT);
