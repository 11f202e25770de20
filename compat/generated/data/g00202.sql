CREATE TABLE events (
  c0 STRING,
  c1 DECIMAL(38, 10),
  c2 BIGINT,
  c3 BIGINT,
  c4 DECIMAL(5, 0),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
