CREATE TABLE events (
  c0 TINYINT,
  c1 BOOLEAN,
  c2 STRING,
  c3 INT,
  c4 BOOLEAN,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
