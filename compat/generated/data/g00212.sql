CREATE TABLE events (
  c0 STRING,
  c1 TINYINT,
  c2 BOOLEAN,
  c3 TINYINT,
  c4 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
