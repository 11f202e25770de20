-- data: shipments
-- partitions: 1
-- mode: streaming
CREATE TABLE results (item STRING, amount INT, ship_id INT, w_end TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.item, o.amount, s.ship_id, s.we
FROM (SELECT item, amount, window_start, window_end FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND)) WHERE amount >= 5) o
FULL JOIN (SELECT ship_id, item AS it, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE shipments, DESCRIPTOR(ts), INTERVAL '5' SECOND)) WHERE ship_id < 120) s
ON o.window_start = s.ws AND s.we = o.window_end AND o.item = s.it;
