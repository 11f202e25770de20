-- data: shipments
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, ship_id INT, window_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, s.ship_id, o.window_time
FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND))) o
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE shipments, DESCRIPTOR(ts), INTERVAL '5' SECOND))) s
ON s.window_end = o.window_end AND o.window_start = s.window_start AND o.amount > 10;
