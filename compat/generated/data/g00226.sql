CREATE TABLE events (
  c0 TINYINT,
  c1 STRING,
  c2 BOOLEAN,
  c3 BOOLEAN,
  c4 TINYINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
