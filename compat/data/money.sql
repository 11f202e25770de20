CREATE TABLE events (
  shop STRING,
  price DECIMAL(10, 2),
  qty INT,
  rate DECIMAL(5, 4),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
