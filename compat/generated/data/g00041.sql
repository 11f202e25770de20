CREATE TABLE events (
  c0 DOUBLE,
  c1 BIGINT,
  c2 INT,
  c3 DECIMAL(5, 0),
  c4 BOOLEAN,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
