-- data: nested
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), tier STRING, spend DOUBLE, orders BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW flat AS
SELECT COALESCE(payload.customer.tier, 'none') AS tier, payload.amount AS amount, ts FROM events WHERE payload.amount IS NOT NULL;
INSERT INTO results SELECT window_start, tier, SUM(amount), COUNT(*)
FROM TABLE(TUMBLE(TABLE flat, DESCRIPTOR(ts), INTERVAL '15' SECOND))
GROUP BY window_start, window_end, tier;
