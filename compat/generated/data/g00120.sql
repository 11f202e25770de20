CREATE TABLE events (
  c0 BIGINT,
  c1 BIGINT,
  c2 BOOLEAN,
  c3 STRING,
  c4 SMALLINT,
  c5 DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
