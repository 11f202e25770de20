CREATE TABLE events (
  c0 STRING,
  c1 BIGINT,
  c2 STRING,
  c3 SMALLINT,
  c4 DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
