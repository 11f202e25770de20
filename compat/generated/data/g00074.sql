CREATE TABLE events (
  c0 STRING,
  c1 SMALLINT,
  c2 DOUBLE,
  c3 SMALLINT,
  c4 FLOAT,
  c5 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
