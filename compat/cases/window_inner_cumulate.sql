-- data: shipments
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, ship_id INT, window_start TIMESTAMP(3), window_end TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, s.ship_id, o.window_start, o.window_end
FROM (SELECT * FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))) o
JOIN (SELECT * FROM TABLE(CUMULATE(TABLE shipments, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))) s
ON o.window_start = s.window_start AND o.window_end = s.window_end AND o.order_id = s.order_id;
