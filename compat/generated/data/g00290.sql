CREATE TABLE events (
  c0 DOUBLE,
  c1 STRING,
  c2 BOOLEAN,
  c3 TINYINT,
  c4 INT,
  c5 BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
