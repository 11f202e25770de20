-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, cnt BIGINT, per_click DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, user_id, cnt, total / cnt
FROM (
  SELECT window_start, window_end, user_id, COUNT(*) AS cnt, SUM(price) AS total
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end, user_id
) AS w
WHERE cnt > 1 AND user_id IS NOT NULL;
