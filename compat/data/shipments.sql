CREATE TABLE orders (
  order_id INT,
  item STRING,
  amount INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{shipments_orders}}', 'format' = 'json');
CREATE TABLE shipments (
  ship_id INT,
  order_id INT,
  item STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{shipments}}', 'format' = 'json');
