-- data: orders2
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, rate INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TABLE rates_pk (currency STRING, market STRING, rate INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (currency) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '{{rates2}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, r.rate
FROM orders AS o JOIN rates_pk FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = LOWER(r.currency);
