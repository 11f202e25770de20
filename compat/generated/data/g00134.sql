CREATE TABLE events (
  c0 STRING,
  c1 BIGINT,
  c2 STRING,
  c3 INT,
  c4 TINYINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
