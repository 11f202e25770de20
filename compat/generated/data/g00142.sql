CREATE TABLE events (
  c0 STRING,
  c1 INT,
  c2 STRING,
  c3 FLOAT,
  c4 DOUBLE,
  c5 DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
