-- data: visits
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, page STRING, cost DECIMAL(6, 2), r BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_start, user_id, page, cost, r FROM (
  SELECT *, DENSE_RANK() OVER (PARTITION BY window_start, window_end, user_id ORDER BY cost) AS r
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE r <= 2;
