CREATE TABLE events (
  c0 DOUBLE,
  c1 INT,
  c2 DOUBLE,
  c3 INT,
  c4 FLOAT,
  c5 DECIMAL(12, 3),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
