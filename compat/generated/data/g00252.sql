CREATE TABLE events (
  c0 TINYINT,
  c1 FLOAT,
  c2 STRING,
  c3 INT,
  c4 BIGINT,
  c5 DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
