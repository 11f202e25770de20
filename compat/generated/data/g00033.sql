CREATE TABLE events (
  c0 INT,
  c1 BIGINT,
  c2 FLOAT,
  c3 STRING,
  c4 STRING,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
