CREATE TABLE events (
  c0 SMALLINT,
  c1 TINYINT,
  c2 DOUBLE,
  c3 DOUBLE,
  c4 BIGINT,
  c5 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
