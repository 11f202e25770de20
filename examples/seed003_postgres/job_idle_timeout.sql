-- Seed 003, end to end, with the seed's fix: job.sql with an idle
-- timeout. A partition silent for a minute stops holding the watermark, so
-- alerts keep coming overnight, within a minute and a half of their window.
-- The trade, as the seed states it: a record that arrives on that
-- partition later than the watermark is late (counted, and dropped), and
-- for this job an alert two hours late is worth less than none.
-- Table: schema.sql.
SET 'parallelism.default' = '4';
SET 'table.exec.source.idle-timeout' = '1 min';

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
