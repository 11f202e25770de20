CREATE TABLE events (
  c0 FLOAT,
  c1 INT,
  c2 BIGINT,
  c3 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
