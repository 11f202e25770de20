CREATE TABLE events (
  c0 DOUBLE,
  c1 DECIMAL(18, 4),
  c2 TINYINT,
  c3 STRING,
  c4 BOOLEAN,
  c5 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
