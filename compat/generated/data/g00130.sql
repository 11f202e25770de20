CREATE TABLE events (
  c0 DECIMAL(5, 0),
  c1 FLOAT,
  c2 STRING,
  c3 STRING,
  c4 TINYINT,
  c5 DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
