-- data: money
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), shop STRING, total DECIMAL(38, 2)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, shop, SUM(price)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND))
GROUP BY window_start, window_end, shop
HAVING SUM(price) > 100 OR COUNT(price) >= 3;
