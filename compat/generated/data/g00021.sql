CREATE TABLE events (
  c0 STRING,
  c1 DECIMAL(10, 2),
  c2 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
