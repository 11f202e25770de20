-- data: shipments
-- partitions: 2
-- mode: streaming
CREATE TABLE results (order_id INT, ship_id INT, o_start TIMESTAMP(3), s_end TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, s.ship_id, o.window_start, s.window_end
FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND))) o
RIGHT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE shipments, DESCRIPTOR(ts), INTERVAL '5' SECOND))) s
ON o.window_start = s.window_start AND o.window_end = s.window_end AND o.order_id = s.order_id;
