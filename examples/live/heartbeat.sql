-- The seed 000 incident, live and scaled down: 4 partitions of generated
-- clicks, partition 3 gets one heartbeat every 8 seconds, 2-second windows.
-- Without an idle timeout every window waits for the next heartbeat; lowwater
-- warns, naming partition 3, while it happens.
SET 'parallelism.default' = '2';

CREATE TABLE clicks (
  user_id    INT,
  event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '1' SECOND
) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '300',
  'fields.user_id.min' = '1',
  'fields.user_id.max' = '5',
  'lowwater.partitions' = '4',
  'lowwater.partition.3.every' = '8 s',
  'lowwater.max-out-of-orderness' = '500 ms'
);

CREATE TABLE dashboard (
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  clicks       BIGINT
) WITH ('connector' = 'print');

INSERT INTO dashboard
SELECT window_start, window_end, COUNT(*) AS clicks
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(event_time), INTERVAL '2' SECOND))
GROUP BY window_start, window_end;
