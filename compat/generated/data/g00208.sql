CREATE TABLE events (
  c0 STRING,
  c1 BIGINT,
  c2 TINYINT,
  c3 BOOLEAN,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
