CREATE TABLE events (
  c0 STRING,
  c1 DOUBLE,
  c2 TINYINT,
  c3 DECIMAL(18, 4),
  c4 SMALLINT,
  c5 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
