-- data: shipments
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, item STRING, amount INT, ship_id INT, ship_second BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, UPPER(o.item), o.amount, s.ship_id, EXTRACT(SECOND FROM s.ts)
FROM orders AS o JOIN shipments AS s ON o.order_id = s.order_id AND s.ts BETWEEN o.ts - INTERVAL '3' SECOND AND o.ts + INTERVAL '10' SECOND
WHERE o.amount >= 5 AND s.ship_id < 120 AND s.item <> 'pear';
