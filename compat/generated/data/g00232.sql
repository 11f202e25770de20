CREATE TABLE events (
  c0 SMALLINT,
  c1 BIGINT,
  c2 SMALLINT,
  c3 SMALLINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
