-- Seed 003: stock-out detection. 12 partitions keyed by SKU; overnight,
-- partition 7 (slow-moving SKUs) gets nothing from 03:37:58 to 06:20.
-- The minimum available quantity per SKU per minute, 30 s out-of-orderness.
SET 'parallelism.default' = '4';

CREATE TABLE stock_changes (
  sku           STRING,
  available_qty INT,
  changed_at    TIMESTAMP(3),
  WATERMARK FOR changed_at AS changed_at - INTERVAL '30' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'stock_changes',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json'
);

CREATE TABLE stock_out_alerts (
  window_start  TIMESTAMP(3),
  window_end    TIMESTAMP(3),
  sku           STRING,
  min_available INT
) WITH (
  'connector' = 'kafka',
  'topic' = 'stock_out_alerts',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json'
);

INSERT INTO stock_out_alerts
SELECT window_start, window_end, sku, MIN(available_qty) AS min_available
FROM TABLE(TUMBLE(TABLE stock_changes, DESCRIPTOR(changed_at), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, sku;
