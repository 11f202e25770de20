CREATE TABLE events (
  c0 INT,
  c1 DECIMAL(18, 4),
  c2 STRING,
  c3 BOOLEAN,
  c4 STRING,
  c5 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
