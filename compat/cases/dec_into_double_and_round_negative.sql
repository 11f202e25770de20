-- data: money
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), scaled DOUBLE, tens DECIMAL(38, 0), wide DECIMAL(38, 6)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, SUM(qty) * 1.5, ROUND(SUM(price), -1), CAST(MAX(price) AS DECIMAL(38, 18)) * CAST(MAX(price) AS DECIMAL(38, 18))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
