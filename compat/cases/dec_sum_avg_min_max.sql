-- data: money
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), shop STRING, total DECIMAL(38, 2), mean DECIMAL(38, 6), low DECIMAL(10, 2), high DECIMAL(10, 2), n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, shop, SUM(price), AVG(price), MIN(price), MAX(price), COUNT(price)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, shop;
