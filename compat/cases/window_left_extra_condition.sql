-- data: shipments
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, amount INT, ship_id INT, order_ts TIMESTAMP(3), ship_ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, o.amount, s.ship_id, o.ts, CAST(s.ts AS TIMESTAMP(3))
FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND))) o
LEFT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE shipments, DESCRIPTOR(ts), INTERVAL '5' SECOND))) s
ON o.window_start = s.window_start AND o.window_end = s.window_end AND o.item = s.item AND s.ts > o.ts;
