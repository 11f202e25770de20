-- data: money
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), shop STRING, revenue DECIMAL(38, 2), orders BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW lines AS SELECT shop, price * qty AS line_total, ts FROM events WHERE qty > 0;
INSERT INTO results SELECT window_start, window_end, shop, SUM(line_total), COUNT(*)
FROM TABLE(SESSION(TABLE lines PARTITION BY shop, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, shop;
