CREATE TABLE events (
  c0 DOUBLE,
  c1 DECIMAL(18, 4),
  c2 BIGINT,
  c3 SMALLINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
