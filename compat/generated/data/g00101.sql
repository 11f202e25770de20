CREATE TABLE events (
  c0 BIGINT,
  c1 STRING,
  c2 DOUBLE,
  c3 STRING,
  c4 TINYINT,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
