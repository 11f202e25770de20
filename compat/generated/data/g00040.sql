CREATE TABLE events (
  c0 BOOLEAN,
  c1 STRING,
  c2 TINYINT,
  c3 BIGINT,
  c4 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
