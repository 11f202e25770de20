-- data: orders2
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, currency STRING, market STRING, rate INT, rate_market STRING, rate_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TABLE rates_mk (currency STRING, market STRING, rate INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', 'path' = '{{rates_coarse}}', 'format' = 'json');
CREATE TEMPORARY VIEW latest_rates AS SELECT currency, market, rate, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rownum FROM rates_mk) WHERE rownum = 1;
INSERT INTO results SELECT o.order_id, o.currency, o.market, r.rate, r.market, r.ts
FROM orders AS o LEFT JOIN latest_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency AND o.market = r.market;
