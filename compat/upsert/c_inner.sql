-- Written by scripts/flink_upsert.py (which runs it): {{orders}} and {{rates}}
-- are the run's topics (compat/upsert/orders.jsonl and rates.jsonl produced to
-- fresh 2-partition topics), {{results}} a temporary output directory,
-- {{case}} the case name. Flink 2.3, streaming, parallelism 1, time zone UTC.
CREATE TABLE orders (
  order_id STRING,
  currency STRING,
  amount BIGINT,
  order_time TIMESTAMP(3) METADATA FROM 'timestamp',
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = '{{orders}}', 'properties.bootstrap.servers' = '127.0.0.1:19092',
  'properties.group.id' = '{{orders}}-{{case}}', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE rates (
  currency STRING,
  rate BIGINT,
  update_time TIMESTAMP(3),
  part INT METADATA FROM 'partition' VIRTUAL,
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka', 'topic' = '{{rates}}', 'properties.bootstrap.servers' = '127.0.0.1:19092',
  'properties.group.id' = '{{rates}}-{{case}}', 'key.format' = 'json', 'value.format' = 'json',
  'scan.bounded.mode' = 'latest-offset');
CREATE TABLE results (
  order_id STRING,
  currency STRING,
  amount BIGINT,
  rate BIGINT,
  order_time TIMESTAMP(3),
  update_time TIMESTAMP(3),
  rate_partition INT
) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT o.order_id, o.currency, o.amount, r.rate, o.order_time, r.update_time, r.part
FROM orders AS o INNER JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
