CREATE TABLE events (
  c0 STRING,
  c1 DECIMAL(12, 3),
  c2 TINYINT,
  c3 DOUBLE,
  c4 SMALLINT,
  c5 SMALLINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
