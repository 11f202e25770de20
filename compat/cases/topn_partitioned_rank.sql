-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), url STRING, user_id STRING, n BIGINT, r BIGINT, d BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE VIEW per_user AS
SELECT window_start, window_end, url, user_id, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
GROUP BY window_start, window_end, url, user_id;
INSERT INTO results
SELECT window_start, url, user_id, n, r, d FROM (
  SELECT window_start, url, user_id, n,
    RANK() OVER (PARTITION BY window_start, window_end, url ORDER BY n DESC) AS r,
    DENSE_RANK() OVER (PARTITION BY window_start, window_end, url ORDER BY n DESC) AS d
  FROM per_user
) WHERE r <= 2;
