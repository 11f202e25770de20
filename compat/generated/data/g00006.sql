CREATE TABLE events (
  c0 SMALLINT,
  c1 STRING,
  c2 FLOAT,
  c3 TINYINT,
  c4 TINYINT,
  c5 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
