CREATE TABLE events (
  c0 SMALLINT,
  c1 BOOLEAN,
  c2 INT,
  c3 DOUBLE,
  c4 DECIMAL(18, 4),
  c5 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
