-- Seed 000 at the scale its incident had live: `clickstream` has 4
-- partitions, partition 3 receives a heartbeat every 60 seconds (the
-- others a click every 500 ms each). A 1-minute tumbling count per window,
-- idle-timeout disabled: every window waits up to a minute for the
-- heartbeat, never the 3 minutes a stall takes; the report names the
-- recurring hold (issue 37's "the incident trips no alarm").
SET 'parallelism.default' = '4';

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
