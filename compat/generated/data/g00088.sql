CREATE TABLE events (
  c0 BIGINT,
  c1 DOUBLE,
  c2 INT,
  c3 TINYINT,
  c4 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
