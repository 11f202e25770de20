-- data: clicks
-- partitions: 2
CREATE TABLE results (ws TIMESTAMP(3), half STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT TUMBLE_START(ts, INTERVAL '10' SECOND),
  CASE WHEN TUMBLE_END(ts, INTERVAL '10' SECOND) > TIMESTAMP '2025-09-14 12:00:20' THEN 'late' ELSE 'early' END,
  COUNT(*)
FROM events
GROUP BY TUMBLE(ts, INTERVAL '10' SECOND);
