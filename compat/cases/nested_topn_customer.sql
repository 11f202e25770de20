-- data: nested
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), customer STRING, spend DOUBLE, r BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_start, customer, spend, r FROM (
  SELECT window_start, customer, spend, RANK() OVER (PARTITION BY window_start, window_end ORDER BY spend DESC) AS r
  FROM (
    SELECT window_start, window_end, payload.customer.id AS customer, SUM(payload.amount) AS spend
    FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
    WHERE payload.customer.id IS NOT NULL
    GROUP BY window_start, window_end, payload.customer.id
  )
) WHERE r = 1;
