CREATE TABLE events (
  c0 FLOAT,
  c1 FLOAT,
  c2 STRING,
  c3 BIGINT,
  c4 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
