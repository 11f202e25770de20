-- data: orders
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, cur STRING, converted BIGINT, late_rate BOOLEAN) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW versioned_rates AS SELECT currency, rate, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rownum FROM rates) WHERE rownum = 1;
INSERT INTO results SELECT o.order_id, LOWER(r.currency), CAST(o.amount AS BIGINT) * r.rate, r.ts < o.ts
FROM orders o JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts r ON r.currency = o.currency
WHERE o.amount > 2 AND r.rate <> 116;
