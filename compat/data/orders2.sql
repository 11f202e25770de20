CREATE TABLE orders (
  order_id INT,
  currency STRING,
  market STRING,
  amount INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{orders2}}', 'format' = 'json');
CREATE TABLE rates (
  currency STRING,
  market STRING,
  rate INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{rates2}}', 'format' = 'json');
