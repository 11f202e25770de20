CREATE TABLE events (
  c0 DECIMAL(10, 2),
  c1 FLOAT,
  c2 DOUBLE,
  c3 FLOAT,
  c4 INT,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
