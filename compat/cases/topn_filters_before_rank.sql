-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, n BIGINT, rn BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_start, user_id, n, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY n ASC, user_id) AS rn
  FROM (
    SELECT window_start, window_end, user_id, COUNT(*) AS n
    FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
    WHERE user_id IS NOT NULL
    GROUP BY window_start, window_end, user_id
    HAVING COUNT(*) >= 2
  )
  WHERE user_id <> 'c'
) WHERE rn <= 1;
