CREATE TABLE events (
  c0 STRING,
  c1 STRING,
  c2 STRING,
  c3 TINYINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
