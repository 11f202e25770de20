-- data: shipments
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, ship_id INT, order_ts TIMESTAMP(3), ship_ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, s.ship_id, o.ts, CAST(s.ts AS TIMESTAMP(3))
FROM shipments AS s JOIN orders AS o ON s.order_id = o.order_id AND o.ts >= s.ts - INTERVAL '10' SECOND AND o.ts <= s.ts;
