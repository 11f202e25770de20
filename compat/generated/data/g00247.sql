CREATE TABLE events (
  c0 DOUBLE,
  c1 TINYINT,
  c2 DOUBLE,
  c3 STRING,
  c4 TINYINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
