-- data: clicks
-- partitions: 2
CREATE TABLE results (ws TIMESTAMP(3), url STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT *
FROM (
  SELECT window_start AS ws, url, COUNT(*) AS n
  FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
  GROUP BY window_start, window_end, url
)
WHERE n >= 2;
