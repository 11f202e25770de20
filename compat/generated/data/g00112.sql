CREATE TABLE events (
  c0 BOOLEAN,
  c1 BOOLEAN,
  c2 FLOAT,
  c3 STRING,
  c4 DECIMAL(38, 10),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
