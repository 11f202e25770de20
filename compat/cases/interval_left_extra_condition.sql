-- data: shipments
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, amount INT, ship_id INT, ship_ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, o.amount, s.ship_id, CAST(s.ts AS TIMESTAMP(3))
FROM orders AS o LEFT JOIN shipments AS s ON o.order_id = s.order_id AND s.ts BETWEEN o.ts - INTERVAL '1' SECOND AND o.ts + INTERVAL '10' SECOND AND o.amount > 5 AND s.ship_id <> 109;
