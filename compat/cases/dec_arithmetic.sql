-- data: money
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), revenue DECIMAL(38, 2), taxed DECIMAL(38, 6), twice DECIMAL(38, 6), per_row DECIMAL(38, 6), ratio DECIMAL(38, 13)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, SUM(price * qty), SUM(price * rate), AVG(price) * 2, SUM(price) / COUNT(*), MAX(price) / 3
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
