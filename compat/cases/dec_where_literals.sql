-- data: money
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), n BIGINT, half_qty DECIMAL(38, 1), rate_sum DECIMAL(38, 4)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COUNT(*), SUM(qty * 1.5), SUM(rate)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
WHERE price > 10.5 AND (rate <= 0.08 OR rate IS NULL)
GROUP BY window_start, window_end;
