CREATE TABLE events (
  c0 STRING,
  c1 STRING,
  c2 STRING,
  c3 INT,
  c4 DECIMAL(38, 10),
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
