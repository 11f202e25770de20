CREATE TABLE events (
  user_id STRING,
  amount INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json');
CREATE TABLE out (window_start TIMESTAMP(3), positive BOOLEAN, user_id STRING, total INT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json');
INSERT INTO out SELECT window_start, positive, user_id, total FROM (
  SELECT window_start, positive, user_id, total,
    RANK() OVER (PARTITION BY window_start, window_end, positive ORDER BY total DESC) AS r
  FROM (SELECT window_start, window_end, amount > 0 AS positive, user_id, SUM(amount) AS total FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
        GROUP BY window_start, window_end, amount > 0, user_id)
) WHERE r = 1;
