-- data: orders2
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, currency STRING, amount INT, rate INT, rate_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW versioned_rates AS SELECT currency, market, rate, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rownum FROM rates) WHERE rownum = 1;
INSERT INTO results SELECT o.order_id, o.currency, o.amount, r.rate, r.ts
FROM orders AS o JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
