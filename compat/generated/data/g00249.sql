CREATE TABLE events (
  c0 BOOLEAN,
  c1 BOOLEAN,
  c2 FLOAT,
  c3 BOOLEAN,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
