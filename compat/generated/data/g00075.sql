CREATE TABLE events (
  c0 BOOLEAN,
  c1 DECIMAL(18, 4),
  c2 STRING,
  c3 TINYINT,
  c4 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
