CREATE TABLE events (
  c0 BOOLEAN,
  c1 FLOAT,
  c2 STRING,
  c3 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
