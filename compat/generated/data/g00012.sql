CREATE TABLE events (
  c0 FLOAT,
  c1 STRING,
  c2 DOUBLE,
  c3 INT,
  c4 DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
