CREATE TABLE events (
  c0 TINYINT,
  c1 BIGINT,
  c2 DECIMAL(12, 3),
  c3 DOUBLE,
  c4 SMALLINT,
  c5 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
