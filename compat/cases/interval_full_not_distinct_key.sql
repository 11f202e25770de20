-- data: shipments
-- partitions: 1
-- mode: streaming
CREATE TABLE results (o_item STRING, order_id INT, s_item STRING, ship_id INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.item, o.order_id, s.item, s.ship_id
FROM orders AS o FULL JOIN shipments AS s ON o.item IS NOT DISTINCT FROM s.item AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '1' SECOND;
