CREATE TABLE events (
  user_id STRING,
  page STRING,
  score INT,
  cost DECIMAL(6, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
