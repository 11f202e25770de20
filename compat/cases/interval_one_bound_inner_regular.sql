-- data: shipments
-- partitions: 1
-- mode: streaming
-- known-difference: Flink runs a join with one time bound as a regular join (insert-only for INNER), lowwater refuses regular joins
CREATE TABLE results (order_id INT, ship_id INT, order_ts TIMESTAMP(3), ship_ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, s.ship_id, o.ts, s.ts
FROM orders AS o JOIN shipments AS s ON o.order_id = s.order_id AND s.ts >= o.ts;
