CREATE TABLE events (
  c0 STRING,
  c1 STRING,
  c2 FLOAT,
  c3 DECIMAL(10, 2),
  c4 STRING,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
