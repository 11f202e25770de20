-- data: orders2
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, converted DECIMAL(12, 2), rate_text STRING, rate_double DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TABLE rates_pk (currency STRING, market STRING, rate INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (currency) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '{{rates2}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, CAST(o.amount AS DECIMAL(10, 2)) * r.rate / 100, CAST(r.rate AS STRING), CAST(r.rate AS DOUBLE) / 8
FROM orders AS o JOIN rates_pk FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency
WHERE o.amount > 3 AND r.market = 'spot' AND r.rate < 114;
