CREATE TABLE events (
  c0 DOUBLE,
  c1 STRING,
  c2 SMALLINT,
  c3 DECIMAL(3, 1),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
