-- data: orders
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, rate INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, r.rate
FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
