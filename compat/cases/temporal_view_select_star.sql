-- data: orders2
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, currency STRING, market STRING, amount INT, ts TIMESTAMP(3), r_currency STRING, r_market STRING, rate INT, r_ts TIMESTAMP(3), rownum BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW versioned_rates AS SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rownum FROM rates) WHERE rownum = 1;
INSERT INTO results SELECT *
FROM orders AS o JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
