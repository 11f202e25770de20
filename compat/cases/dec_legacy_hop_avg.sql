-- data: money
-- partitions: 2
CREATE TABLE results (ws TIMESTAMP(3), we TIMESTAMP(3), mean DECIMAL(38, 6), mean_rate DECIMAL(38, 6)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT HOP_START(ts, INTERVAL '5' SECOND, INTERVAL '15' SECOND), HOP_END(ts, INTERVAL '5' SECOND, INTERVAL '15' SECOND), AVG(price), AVG(rate)
FROM events
GROUP BY HOP(ts, INTERVAL '5' SECOND, INTERVAL '15' SECOND);
