-- data: money
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), shop STRING, price DECIMAL(10, 2), qty INT, pos BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_start, shop, price, qty, pos FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, shop ORDER BY price DESC, qty) AS pos
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE pos <= 2;
