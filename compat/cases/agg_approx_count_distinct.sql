-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), users BIGINT, urls BIGINT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, APPROX_COUNT_DISTINCT(user_id), APPROX_COUNT_DISTINCT(url), COUNT(*)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '20' SECOND))
GROUP BY window_start, window_end;
