CREATE TABLE events (
  c0 BIGINT,
  c1 STRING,
  c2 STRING,
  c3 STRING,
  c4 STRING,
  c5 DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
