CREATE TABLE events (
  c0 DOUBLE,
  c1 BOOLEAN,
  c2 SMALLINT,
  c3 TINYINT,
  c4 FLOAT,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
