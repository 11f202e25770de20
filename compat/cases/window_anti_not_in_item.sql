-- data: shipments
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, item STRING, window_start TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, o.item, o.window_start FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND))) o
WHERE o.item NOT IN (SELECT item FROM (SELECT * FROM TABLE(TUMBLE(TABLE shipments, DESCRIPTOR(ts), INTERVAL '5' SECOND))) s WHERE o.window_start = s.window_start AND o.window_end = s.window_end AND s.ship_id <> 127);
