CREATE TABLE orders (
  order_id INT,
  currency STRING,
  amount INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{orders_late2}}', 'format' = 'json');
CREATE TABLE rates (
  currency STRING,
  rate INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{rates_late}}', 'format' = 'json');
