CREATE TABLE events (
  c0 DOUBLE,
  c1 INT,
  c2 STRING,
  c3 STRING,
  c4 FLOAT,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
