-- Orders (8 partitions) converted with the currency rate valid at each
-- order's time. `rates` has 4 partitions, but only 4 currencies hashed to 2
-- of them: partitions 2 and 3 never receive a record. Each rate changes once
-- an hour. idle-timeout is left at Flink's default (disabled).
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
  'properties.group.id' = 'convert',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

CREATE TABLE rates (
  currency    STRING,
  rate        INT,
  update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'rates',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'properties.group.id' = 'convert',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

-- The versioned view: the last rate per currency, as Flink accepts it.
CREATE VIEW versioned_rates AS
SELECT currency, rate, update_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rownum
  FROM rates)
WHERE rownum = 1;

CREATE TABLE converted (
  order_id   BIGINT,
  currency   STRING,
  amount     INT,
  rate       INT,
  total      BIGINT,
  order_time TIMESTAMP(3)
) WITH (
  'connector' = 'kafka',
  'topic' = 'converted',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json'
);

INSERT INTO converted
SELECT o.order_id, o.currency, o.amount, r.rate, CAST(o.amount AS BIGINT) * r.rate, o.order_time
FROM orders AS o
JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
