CREATE TABLE events (
  c0 FLOAT,
  c1 DOUBLE,
  c2 STRING,
  c3 TINYINT,
  c4 STRING,
  c5 BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
