-- data: clicks
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, spent INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_start, user_id, spent FROM (
  SELECT window_start, user_id, spent, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY spent ASC, user_id DESC) AS rn
  FROM (
    SELECT window_start, window_end, user_id, SUM(amount) AS spent
    FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '20' SECOND))
    WHERE user_id IS NOT NULL
    GROUP BY window_start, window_end, user_id
  )
) WHERE rn = 1;
