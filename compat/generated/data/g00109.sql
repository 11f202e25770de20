CREATE TABLE events (
  c0 BIGINT,
  c1 STRING,
  c2 STRING,
  c3 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
