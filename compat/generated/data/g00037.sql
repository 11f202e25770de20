CREATE TABLE events (
  c0 SMALLINT,
  c1 BOOLEAN,
  c2 STRING,
  c3 TINYINT,
  c4 DOUBLE,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
