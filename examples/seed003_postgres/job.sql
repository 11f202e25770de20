-- Seed 003, end to end: stock-out alerts upserted into PostgreSQL.
-- Stock levels arrive on a 12-partition Kafka topic keyed by SKU; an alert
-- is a SKU whose available quantity reached 0 within a minute (event
-- time, 30 s out-of-orderness), written to gold.stock_out_alerts with the
-- time it was emitted. Overnight one partition goes quiet and, with no
-- idle timeout (this file), holds every window: the table gets no row
-- until the partition speaks again, then all of them in one burst.
-- job_idle_timeout.sql is the seed's fix. Table: schema.sql.
--
-- lowwater's own checks of the sink say it as it happens: the sink is
-- stale after 5 minutes without a row (naming the partition that holds the
-- watermark), and rows emitted more than 2 minutes after their window
-- ended are counted and reported.
SET 'parallelism.default' = '4';

CREATE TABLE stock_changes (
  sku           STRING,
  available_qty INT,
  changed_at    TIMESTAMP(3),
  WATERMARK FOR changed_at AS changed_at - INTERVAL '30' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'stock_changes',
  'properties.bootstrap.servers' = '127.0.0.1:19092',
  'properties.group.id' = 'inventory_alerts',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

CREATE TABLE stock_out_alerts (
  sku         STRING,
  event_ts    TIMESTAMP_LTZ(3),
  alerted_at  TIMESTAMP_LTZ(3),
  PRIMARY KEY (sku, event_ts) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:postgresql://127.0.0.1:15432/lowwater',
  'table-name' = 'gold.stock_out_alerts',
  'username' = 'lowwater',
  'password' = 'lowwater-secret',
  'lowwater.sink.max-staleness' = '5 min',
  'lowwater.sink.max-emission-lag' = '2 min'
);

INSERT INTO stock_out_alerts
SELECT sku, CAST(window_end AS TIMESTAMP_LTZ(3)) AS event_ts, CURRENT_TIMESTAMP AS alerted_at
FROM TABLE(TUMBLE(TABLE stock_changes, DESCRIPTOR(changed_at), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, sku
HAVING MIN(available_qty) = 0
ON CONFLICT DO DEDUPLICATE;
