CREATE TABLE events (
  c0 STRING,
  c1 SMALLINT,
  c2 INT,
  c3 DECIMAL(12, 3),
  c4 TINYINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
