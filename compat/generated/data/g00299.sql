CREATE TABLE events (
  c0 BOOLEAN,
  c1 BIGINT,
  c2 TINYINT,
  c3 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
