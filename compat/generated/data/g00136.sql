CREATE TABLE events (
  c0 DECIMAL(5, 0),
  c1 STRING,
  c2 TINYINT,
  c3 DECIMAL(12, 3),
  c4 STRING,
  c5 BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
