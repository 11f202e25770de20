CREATE TABLE events (
  c0 BOOLEAN,
  c1 DOUBLE,
  c2 FLOAT,
  c3 INT,
  c4 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
