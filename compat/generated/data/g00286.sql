CREATE TABLE events (
  c0 STRING,
  c1 DOUBLE,
  c2 SMALLINT,
  c3 SMALLINT,
  c4 DECIMAL(38, 10),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
