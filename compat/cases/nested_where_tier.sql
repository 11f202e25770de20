-- data: nested
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, most INT, low DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, COUNT(*), MAX(payload.items), MIN(payload.amount)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
WHERE payload.customer.tier = 'gold' OR payload.customer.id IS NULL
GROUP BY window_start, window_end;
