-- data: late2
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, currency STRING, rate INT, rate_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TABLE rates_pk (currency STRING, rate INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (currency) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '{{rates_late}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, o.currency, r.rate, r.ts
FROM orders AS o LEFT JOIN rates_pk FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
