-- data: orders2
-- partitions: 1
-- mode: streaming
-- known-difference: timestamp arithmetic with an INTERVAL (r.ts >= o.ts - INTERVAL '3' SECOND) is refused outside WATERMARK clauses and window function arguments; Flink runs it as a residual ON condition
CREATE TABLE results (order_id INT, amount INT, rate INT, rate_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW versioned_rates AS SELECT currency, market, rate, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rownum FROM rates) WHERE rownum = 1;
INSERT INTO results SELECT o.order_id, o.amount, r.rate, r.ts
FROM orders AS o LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency AND r.ts >= o.ts - INTERVAL '3' SECOND AND o.amount > 2;
