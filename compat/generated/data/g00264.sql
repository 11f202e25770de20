CREATE TABLE events (
  c0 FLOAT,
  c1 STRING,
  c2 BIGINT,
  c3 STRING,
  c4 INT,
  c5 DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
