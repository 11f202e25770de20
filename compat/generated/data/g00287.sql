CREATE TABLE events (
  c0 TINYINT,
  c1 DOUBLE,
  c2 FLOAT,
  c3 SMALLINT,
  c4 INT,
  c5 DECIMAL(18, 4),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
