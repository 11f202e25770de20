CREATE TABLE events (
  c0 DOUBLE,
  c1 TINYINT,
  c2 STRING,
  c3 INT,
  c4 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
