-- data: shipments
-- partitions: 2
-- mode: streaming
CREATE TABLE results (order_id INT, ship_id INT, amount INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, s.ship_id, o.amount
FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND))) o
RIGHT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE shipments, DESCRIPTOR(ts), INTERVAL '5' SECOND))) s
ON o.window_start = s.window_start AND o.window_end = s.window_end AND o.order_id = s.order_id
WHERE s.ship_id <> 110 AND (o.amount IS NULL OR o.amount < 20);
