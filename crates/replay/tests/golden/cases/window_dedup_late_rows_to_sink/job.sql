CREATE TABLE events (
  user_id STRING,
  amount INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json', 'late-data.sink' = 'late');
CREATE TABLE out (window_start TIMESTAMP(3), user_id STRING, amount INT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json');
CREATE TABLE late (user_id STRING, amount INT, ts TIMESTAMP(3)) WITH ('connector' = 'kafka', 'topic' = 'late', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json');
INSERT INTO out SELECT window_start, user_id, amount FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id ORDER BY ts) AS rn
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rn = 1;
