CREATE TABLE events (
  c0 DECIMAL(10, 2),
  c1 SMALLINT,
  c2 FLOAT,
  c3 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
