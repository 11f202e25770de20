CREATE TABLE events (
  c0 STRING,
  c1 INT,
  c2 BOOLEAN,
  c3 FLOAT,
  c4 SMALLINT,
  c5 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
