-- Orders (8 partitions, the rates_join example's) and their shipments in
-- the same hour: a window join of hourly TUMBLE windows, each order written
-- with its shipment of that hour, or with a NULL ship_id when none came.
-- The shipments topic has a partition per warehouse (4); warehouse 3's
-- feed stops at 01:00. idle-timeout is left at Flink's default (disabled).
SET 'parallelism.default' = '4';

CREATE TABLE orders (
  order_id   BIGINT,
  currency   STRING,
  amount     INT,
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'properties.group.id' = 'shipped',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

CREATE TABLE shipments (
  ship_id   BIGINT,
  order_id  BIGINT,
  ship_time TIMESTAMP(3),
  WATERMARK FOR ship_time AS ship_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'shipments',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'properties.group.id' = 'shipped',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

CREATE TABLE shipped_in_hour (
  hour_start TIMESTAMP(3),
  order_id   BIGINT,
  ship_id    BIGINT
) WITH (
  'connector' = 'kafka',
  'topic' = 'shipped_in_hour',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json'
);

-- An hour's rows are written once the watermark of both topics passes its
-- end: warehouse 3's quiet partition holds every hour after 01:00.
INSERT INTO shipped_in_hour
SELECT o.window_start, o.order_id, s.ship_id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))) o
LEFT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE shipments, DESCRIPTOR(ship_time), INTERVAL '1' HOUR))) s
ON o.window_start = s.window_start AND o.window_end = s.window_end AND o.order_id = s.order_id;
