CREATE TABLE events (
  c0 DECIMAL(18, 4),
  c1 INT,
  c2 STRING,
  c3 SMALLINT,
  c4 TINYINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
