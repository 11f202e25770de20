CREATE TABLE events (
  c0 INT,
  c1 SMALLINT,
  c2 FLOAT,
  c3 FLOAT,
  c4 DECIMAL(10, 2),
  c5 TINYINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
