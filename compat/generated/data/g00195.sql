CREATE TABLE events (
  c0 DECIMAL(3, 1),
  c1 TINYINT,
  c2 BIGINT,
  c3 BIGINT,
  c4 DECIMAL(3, 1),
  c5 SMALLINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
