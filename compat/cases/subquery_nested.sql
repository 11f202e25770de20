-- data: clicks
-- partitions: 3
CREATE TABLE results (window_end TIMESTAMP(3), u STRING, doubled BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_end, u, doubled
FROM (
  SELECT window_end, u, c * 2 AS doubled
  FROM (
    SELECT window_end, COALESCE(user_id, '?') AS u, COUNT(*) AS c
    FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
    GROUP BY window_start, window_end, COALESCE(user_id, '?')
  ) t
  WHERE t.c <> 3
)
WHERE doubled > 2;
