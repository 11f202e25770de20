-- Orders (8 partitions, the rates_join example's) joined with their
-- shipments within an hour, or written with NULLs when none came. The
-- shipments topic has a partition per warehouse (4); warehouse 3's feed
-- stops at 01:00. idle-timeout is left at Flink's default (disabled).
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

CREATE TABLE shipped (
  order_id   BIGINT,
  ship_id    BIGINT,
  order_time TIMESTAMP(3),
  ship_time  TIMESTAMP(3)
) WITH (
  'connector' = 'kafka',
  'topic' = 'shipped',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json'
);

-- An order not shipped within the hour is written with a NULL ship_id once
-- the watermark of both topics passes its hour: warehouse 3's quiet
-- partition holds every such row.
INSERT INTO shipped
SELECT o.order_id, s.ship_id, o.order_time, CAST(s.ship_time AS TIMESTAMP(3))
FROM orders AS o
LEFT JOIN shipments AS s
ON o.order_id = s.order_id AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '1' HOUR;
