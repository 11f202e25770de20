CREATE TABLE events (
  c0 STRING,
  c1 DECIMAL(38, 10),
  c2 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
