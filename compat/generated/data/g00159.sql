CREATE TABLE events (
  c0 INT,
  c1 STRING,
  c2 BIGINT,
  c3 STRING,
  c4 BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
