CREATE TABLE events (
  c0 STRING,
  c1 FLOAT,
  c2 TINYINT,
  c3 SMALLINT,
  c4 INT,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
