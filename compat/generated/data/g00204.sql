CREATE TABLE events (
  c0 STRING,
  c1 BOOLEAN,
  c2 BIGINT,
  c3 INT,
  c4 DECIMAL(12, 3),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
