-- data: shipments
-- partitions: 3
-- mode: streaming
CREATE TABLE results (o_item STRING, order_id INT, s_item STRING, ship_id INT, window_end TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.item, o.order_id, s.item, s.ship_id, COALESCE(o.window_end, s.window_end)
FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))) o
FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE shipments, DESCRIPTOR(ts), INTERVAL '10' SECOND))) s
ON o.window_start = s.window_start AND o.window_end = s.window_end AND o.item = s.item;
