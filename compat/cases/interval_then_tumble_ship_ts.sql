-- data: shipments
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), item STRING, ships BIGINT, total BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW shipped AS SELECT o.order_id, o.item, o.amount, o.ts AS order_ts, s.ship_id, s.ts AS ship_ts
FROM orders AS o JOIN shipments AS s ON o.order_id = s.order_id AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '10' SECOND;
INSERT INTO results SELECT window_start, window_end, item, COUNT(*), SUM(CAST(amount AS BIGINT))
FROM TABLE(TUMBLE(TABLE shipped, DESCRIPTOR(ship_ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, item;
