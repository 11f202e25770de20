CREATE TABLE events (
  c0 DECIMAL(18, 4),
  c1 SMALLINT,
  c2 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
