CREATE TABLE events (
  c0 DECIMAL(12, 3),
  c1 SMALLINT,
  c2 SMALLINT,
  c3 DOUBLE,
  c4 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
