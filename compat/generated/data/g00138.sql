CREATE TABLE events (
  c0 DECIMAL(5, 0),
  c1 STRING,
  c2 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
