CREATE TABLE events (
  c0 TINYINT,
  c1 BOOLEAN,
  c2 BOOLEAN,
  c3 STRING,
  c4 BIGINT,
  c5 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
