-- data: orders2
-- partitions: 1
-- mode: streaming
CREATE TABLE results (order_id INT, c STRING, r INT, t TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW versioned_rates (c, r, t) AS SELECT currency, rate, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rownum FROM rates) WHERE rownum = 1;
INSERT INTO results SELECT o.order_id, v.c, v.r, v.t
FROM orders AS o LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS v ON o.currency = v.c;
