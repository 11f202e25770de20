CREATE TABLE events (
  c0 STRING,
  c1 SMALLINT,
  c2 DECIMAL(3, 1),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
