CREATE TABLE events (
  c0 STRING,
  c1 DOUBLE,
  c2 SMALLINT,
  c3 DECIMAL(5, 0),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
