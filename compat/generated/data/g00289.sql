CREATE TABLE events (
  c0 INT,
  c1 SMALLINT,
  c2 STRING,
  c3 TINYINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
