CREATE TABLE events (
  c0 SMALLINT,
  c1 DOUBLE,
  c2 SMALLINT,
  c3 BIGINT,
  c4 BOOLEAN,
  c5 STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
