CREATE TABLE events (
  c0 BIGINT,
  c1 BIGINT,
  c2 FLOAT,
  c3 DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
