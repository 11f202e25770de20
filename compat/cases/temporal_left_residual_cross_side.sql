-- data: orders2
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, amount INT, rate INT, market STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TABLE rates_pk (currency STRING, market STRING, rate INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (currency) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '{{rates2}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, o.amount, r.rate, r.market
FROM orders AS o LEFT JOIN rates_pk FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency AND o.amount * 10 < r.rate AND r.market <> 'fwd';
