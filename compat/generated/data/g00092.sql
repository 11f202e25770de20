CREATE TABLE events (
  c0 STRING,
  c1 BOOLEAN,
  c2 STRING,
  c3 STRING,
  c4 BOOLEAN,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
