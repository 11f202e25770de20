CREATE TABLE events (
  c0 DOUBLE,
  c1 DOUBLE,
  c2 INT,
  c3 DOUBLE,
  c4 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
