CREATE TABLE events (
  c0 STRING,
  c1 TINYINT,
  c2 FLOAT,
  c3 DECIMAL(3, 1),
  c4 BOOLEAN,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
