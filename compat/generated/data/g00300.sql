CREATE TABLE events (
  c0 DOUBLE,
  c1 DOUBLE,
  c2 TINYINT,
  c3 STRING,
  c4 DOUBLE,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
