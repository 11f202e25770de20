-- data: shipments
-- partitions: 2
-- mode: streaming
CREATE TABLE results (order_id INT, ship_id INT, w_start TIMESTAMP(3), w_end TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT COALESCE(o.order_id, s.order_id), s.ship_id, COALESCE(o.window_start, s.window_start), COALESCE(o.window_end, s.window_end)
FROM (SELECT * FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) o
FULL JOIN (SELECT * FROM TABLE(HOP(TABLE shipments, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) s
ON o.window_start = s.window_start AND o.window_end = s.window_end AND o.order_id = s.order_id;
