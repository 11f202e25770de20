CREATE TABLE events (
  c0 BIGINT,
  c1 BIGINT,
  c2 BIGINT,
  c3 TINYINT,
  c4 BIGINT,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
