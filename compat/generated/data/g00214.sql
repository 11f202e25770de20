CREATE TABLE events (
  c0 DOUBLE,
  c1 DECIMAL(5, 0),
  c2 FLOAT,
  c3 STRING,
  c4 STRING,
  c5 BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
