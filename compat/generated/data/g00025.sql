CREATE TABLE events (
  c0 TINYINT,
  c1 BIGINT,
  c2 FLOAT,
  c3 STRING,
  c4 TINYINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
