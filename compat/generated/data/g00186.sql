CREATE TABLE events (
  c0 DECIMAL(10, 2),
  c1 STRING,
  c2 STRING,
  c3 SMALLINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
