CREATE TABLE events (
  c0 DOUBLE,
  c1 STRING,
  c2 BIGINT,
  c3 DECIMAL(12, 3),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
