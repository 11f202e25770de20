CREATE TABLE events (
  c0 DECIMAL(10, 2),
  c1 BIGINT,
  c2 BIGINT,
  c3 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
