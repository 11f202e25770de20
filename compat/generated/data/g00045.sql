CREATE TABLE events (
  c0 DECIMAL(10, 2),
  c1 STRING,
  c2 FLOAT,
  c3 SMALLINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
