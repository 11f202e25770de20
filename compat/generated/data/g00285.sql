CREATE TABLE events (
  c0 FLOAT,
  c1 DECIMAL(10, 2),
  c2 BOOLEAN,
  c3 BOOLEAN,
  c4 STRING,
  c5 SMALLINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
