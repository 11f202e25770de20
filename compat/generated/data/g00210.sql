CREATE TABLE events (
  c0 STRING,
  c1 DECIMAL(5, 0),
  c2 INT,
  c3 TINYINT,
  c4 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
