-- data: nested
-- partitions: 1
CREATE TABLE results (ws TIMESTAMP(3), n BIGINT, with_customer BIGINT, with_tier BIGINT, with_items BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT TUMBLE_START(ts, INTERVAL '20' SECOND), COUNT(*), COUNT(payload.customer.id), COUNT(payload.customer.tier), COUNT(payload.items)
FROM events
GROUP BY TUMBLE(ts, INTERVAL '20' SECOND);
