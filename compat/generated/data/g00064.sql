CREATE TABLE events (
  c0 SMALLINT,
  c1 BOOLEAN,
  c2 DECIMAL(10, 2),
  c3 STRING,
  c4 TINYINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
