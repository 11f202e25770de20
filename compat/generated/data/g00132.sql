CREATE TABLE events (
  c0 STRING,
  c1 DECIMAL(3, 1),
  c2 TINYINT,
  c3 INT,
  c4 TINYINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
