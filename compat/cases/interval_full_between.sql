-- data: shipments
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, ship_id INT, order_ts TIMESTAMP(3), ship_ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, s.ship_id, CAST(o.ts AS TIMESTAMP(3)), CAST(s.ts AS TIMESTAMP(3))
FROM orders AS o FULL OUTER JOIN shipments AS s ON o.order_id = s.order_id AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '10' SECOND;
