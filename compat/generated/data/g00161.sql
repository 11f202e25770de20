CREATE TABLE events (
  c0 BIGINT,
  c1 STRING,
  c2 INT,
  c3 BIGINT,
  c4 BOOLEAN,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
