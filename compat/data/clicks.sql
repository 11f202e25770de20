CREATE TABLE events (
  user_id STRING,
  url STRING,
  amount INT,
  price DOUBLE,
  flag BOOLEAN,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
