CREATE TABLE events (
  c0 STRING,
  c1 DECIMAL(18, 4),
  c2 DECIMAL(38, 10),
  c3 INT,
  c4 BIGINT,
  c5 SMALLINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
