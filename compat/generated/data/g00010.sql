CREATE TABLE events (
  c0 TINYINT,
  c1 DECIMAL(3, 1),
  c2 STRING,
  c3 BOOLEAN,
  c4 TINYINT,
  c5 BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
