-- data: nested
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), customer STRING, total DOUBLE, n BIGINT, items INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, payload.customer.id, SUM(payload.amount), COUNT(*), SUM(payload.items)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, payload.customer.id;
