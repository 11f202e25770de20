CREATE TABLE events (
  c0 STRING,
  c1 FLOAT,
  c2 TINYINT,
  c3 DECIMAL(38, 10),
  c4 BIGINT,
  c5 DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
