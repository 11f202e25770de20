CREATE TABLE events (
  c0 STRING,
  c1 DOUBLE,
  c2 SMALLINT,
  c3 SMALLINT,
  c4 DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
