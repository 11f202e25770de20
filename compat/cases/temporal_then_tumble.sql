-- data: orders
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), currency STRING, total BIGINT, orders BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW versioned_rates AS SELECT currency, rate, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rownum FROM rates) WHERE rownum = 1;
CREATE TEMPORARY VIEW converted AS SELECT o.ts, o.currency, o.amount * r.rate AS v FROM orders AS o JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
INSERT INTO results SELECT window_start, window_end, currency, SUM(CAST(v AS BIGINT)), COUNT(*)
FROM TABLE(TUMBLE(TABLE converted, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, currency;
