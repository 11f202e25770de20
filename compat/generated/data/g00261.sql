CREATE TABLE events (
  c0 TINYINT,
  c1 INT,
  c2 TINYINT,
  c3 STRING,
  c4 BOOLEAN,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
