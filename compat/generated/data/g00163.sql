CREATE TABLE events (
  c0 BOOLEAN,
  c1 STRING,
  c2 BOOLEAN,
  c3 INT,
  c4 STRING,
  c5 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
