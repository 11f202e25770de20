CREATE TABLE events (
  c0 TINYINT,
  c1 TINYINT,
  c2 DOUBLE,
  c3 INT,
  c4 BOOLEAN,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
