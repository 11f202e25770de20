-- Seed 000: `clickstream` has 16 partitions; partition 11 only receives a
-- heartbeat every 90 minutes. A 1-minute tumbling count per window, written
-- to a dashboard topic, with the one-line fix: an idle timeout of 60 s.
SET 'parallelism.default' = '8';
SET 'table.exec.source.idle-timeout' = '60 s';

CREATE TABLE clickstream (
  user_id    STRING,
  url        STRING,
  event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'clickstream',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'properties.group.id' = 'dashboard',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

CREATE TABLE dashboard (
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  clicks       BIGINT
) WITH (
  'connector' = 'kafka',
  'topic' = 'dashboard',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json'
);

INSERT INTO dashboard
SELECT window_start, window_end, COUNT(*) AS clicks
FROM TABLE(TUMBLE(TABLE clickstream, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
