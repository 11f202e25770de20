CREATE TABLE events (
  c0 INT,
  c1 BIGINT,
  c2 STRING,
  c3 DECIMAL(3, 1),
  c4 FLOAT,
  c5 BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
