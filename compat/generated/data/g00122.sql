CREATE TABLE events (
  c0 STRING,
  c1 BOOLEAN,
  c2 FLOAT,
  c3 SMALLINT,
  c4 DOUBLE,
  c5 BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
