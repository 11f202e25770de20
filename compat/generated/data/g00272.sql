CREATE TABLE events (
  c0 DOUBLE,
  c1 SMALLINT,
  c2 STRING,
  c3 DOUBLE,
  c4 DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
