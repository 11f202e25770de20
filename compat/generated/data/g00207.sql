CREATE TABLE events (
  c0 BOOLEAN,
  c1 BIGINT,
  c2 INT,
  c3 TINYINT,
  c4 DOUBLE,
  c5 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
