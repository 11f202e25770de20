CREATE TABLE events (
  c0 DECIMAL(3, 1),
  c1 BIGINT,
  c2 DOUBLE,
  c3 INT,
  c4 BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
