CREATE TABLE events (
  c0 INT,
  c1 DECIMAL(10, 2),
  c2 TINYINT,
  c3 SMALLINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
