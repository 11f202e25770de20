CREATE TABLE events (
  c0 BOOLEAN,
  c1 BIGINT,
  c2 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
