CREATE TABLE events (
  c0 SMALLINT,
  c1 DECIMAL(5, 0),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
