-- An upsert-kafka versioned table with tombstones (compat/upsert, whose
-- rows real Flink 2.3 computed): rates' rowtime is the record timestamp,
-- so the changelog is normalized per currency and a tombstone deletes the
-- currency's last version from that version's time on.
SET 'parallelism.default' = '2';
CREATE TABLE orders (
  order_id STRING,
  currency STRING,
  amount BIGINT,
  order_time TIMESTAMP(3) METADATA FROM 'timestamp',
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '127.0.0.1:9092',
  'properties.group.id' = 'orders-golden', 'scan.startup.mode' = 'earliest-offset',
  'format' = 'json');
CREATE TABLE rates (
  currency STRING,
  rate BIGINT,
  update_time TIMESTAMP(3) METADATA FROM 'timestamp',
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka', 'topic' = 'rates', 'properties.bootstrap.servers' = '127.0.0.1:9092',
  'properties.group.id' = 'rates-golden', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE results (
  order_id STRING, currency STRING, amount BIGINT, rate BIGINT,
  order_time TIMESTAMP(3), update_time TIMESTAMP(3)
) WITH ('connector' = 'kafka', 'topic' = 'results', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json');
INSERT INTO results
SELECT o.order_id, o.currency, o.amount, r.rate, o.order_time, r.update_time
FROM orders AS o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
