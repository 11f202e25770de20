CREATE TABLE events (
  c0 STRING,
  c1 BOOLEAN,
  c2 TINYINT,
  c3 BIGINT,
  c4 TINYINT,
  c5 DECIMAL(5, 0),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
