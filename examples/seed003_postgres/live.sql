-- Seed 003 live on this machine, scaled down (no Kafka: generated stock
-- changes): 4 partitions, partition 3 (slow-moving SKUs) silent from 10 s
-- to 40 s after the start; 2-second windows, 1 s out-of-orderness; alerts
-- upserted into gold.stock_out_alerts (schema.sql) with the time each was
-- emitted. Run it for a minute and ask the table the seed's two questions
-- while it runs (README: Quick start):
--   SELECT now() - max(alerted_at) FROM gold.stock_out_alerts;   -- freshness
--   SELECT max(alerted_at - event_ts) FROM gold.stock_out_alerts; -- emission lag
-- From 10 s on the first stops moving and lowwater warns that the sink is
-- stale, naming partition 3; at 40 s the held alerts arrive at once and the
-- second shows the 30 s they waited. With
--   SET 'table.exec.source.idle-timeout' = '1 s';
-- added, the alerts keep coming.
SET 'parallelism.default' = '2';

CREATE TABLE stock_changes (
  sku           INT,
  available_qty INT,
  changed_at    TIMESTAMP(3),
  WATERMARK FOR changed_at AS changed_at - INTERVAL '1' SECOND
) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '50',
  'fields.sku.min' = '1',
  'fields.sku.max' = '40',
  'fields.available_qty.min' = '0',
  'fields.available_qty.max' = '9',
  'lowwater.partitions' = '4',
  'lowwater.partition.3.quiet' = '10 s..40 s',
  'lowwater.max-out-of-orderness' = '500 ms'
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
  'lowwater.sink.max-staleness' = '10 s',
  'lowwater.sink.max-emission-lag' = '4 s'
);

INSERT INTO stock_out_alerts
SELECT CAST(sku AS STRING), CAST(window_end AS TIMESTAMP_LTZ(3)), CURRENT_TIMESTAMP
FROM TABLE(TUMBLE(TABLE stock_changes, DESCRIPTOR(changed_at), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, sku
HAVING MIN(available_qty) = 0
ON CONFLICT DO DEDUPLICATE;
