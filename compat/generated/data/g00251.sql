CREATE TABLE events (
  c0 DECIMAL(10, 2),
  c1 BOOLEAN,
  c2 BOOLEAN,
  c3 STRING,
  c4 BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
