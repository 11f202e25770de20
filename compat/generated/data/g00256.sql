CREATE TABLE events (
  c0 STRING,
  c1 DECIMAL(12, 3),
  c2 DOUBLE,
  c3 DECIMAL(5, 0),
  c4 TINYINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
