CREATE TABLE events (
  c0 DOUBLE,
  c1 SMALLINT,
  c2 STRING,
  c3 BIGINT,
  c4 DECIMAL(5, 0),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
