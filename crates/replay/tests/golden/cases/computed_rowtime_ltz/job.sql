CREATE TABLE events (
  user_id STRING,
  epoch_ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(epoch_ms,
  3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json');
CREATE TABLE out (window_start TIMESTAMP(3), window_end TIMESTAMP(3), window_time TIMESTAMP_LTZ(3), user_id STRING, cnt BIGINT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json');
INSERT INTO out SELECT window_start, window_end, window_time, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, user_id;
