-- The alert table of seed 003, in PostgreSQL (psql -f schema.sql).
-- One row per SKU and minute in which its available quantity reached 0:
-- event_ts is the end of that minute (event time), alerted_at the time
-- lowwater emitted the row (processing time). The seed's two checks run
-- on it:
--   freshness:     SELECT max(alerted_at) FROM gold.stock_out_alerts;
--   emission lag:  SELECT max(alerted_at - event_ts) FROM gold.stock_out_alerts;
CREATE SCHEMA IF NOT EXISTS gold;
CREATE TABLE IF NOT EXISTS gold.stock_out_alerts (
  sku         text        NOT NULL,
  event_ts    timestamptz NOT NULL,
  alerted_at  timestamptz NOT NULL,
  PRIMARY KEY (sku, event_ts)
);
