CREATE TABLE events (
  c0 STRING,
  c1 INT,
  c2 BIGINT,
  c3 DECIMAL(38, 10),
  c4 TINYINT,
  c5 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
