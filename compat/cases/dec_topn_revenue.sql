-- data: money
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), shop STRING, revenue DECIMAL(38, 2), pos BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_start, shop, revenue, pos FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY revenue DESC NULLS LAST, shop) AS pos
  FROM (
    SELECT window_start, window_end, shop, SUM(price * qty) AS revenue
    FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
    GROUP BY window_start, window_end, shop
  )
) WHERE pos <= 2;
