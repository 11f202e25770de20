-- data: money
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), shop STRING, filled DECIMAL(38, 2), picked DECIMAL(38, 2), mixed DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, shop, SUM(COALESCE(price, 0)), SUM(CASE WHEN qty > 2 THEN price ELSE 0.5 END), SUM(price * 1e0)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '20' SECOND))
GROUP BY window_start, window_end, shop;
