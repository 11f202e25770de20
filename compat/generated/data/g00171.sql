CREATE TABLE events (
  c0 DECIMAL(18, 4),
  c1 DECIMAL(5, 0),
  c2 SMALLINT,
  c3 BOOLEAN,
  c4 STRING,
  c5 INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
