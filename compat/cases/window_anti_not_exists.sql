-- data: shipments
-- partitions: 3
-- mode: streaming
CREATE TABLE results (order_id INT, item STRING, window_start TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT order_id, item, window_start FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND))) o
WHERE NOT EXISTS (SELECT * FROM (SELECT * FROM TABLE(TUMBLE(TABLE shipments, DESCRIPTOR(ts), INTERVAL '5' SECOND))) s WHERE s.order_id = o.order_id AND o.window_start = s.window_start AND o.window_end = s.window_end);
