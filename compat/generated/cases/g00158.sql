-- data: g00158
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 TINYINT, a0 TINYINT, a1 DECIMAL(38, 6)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, SUM(c1), AVG(c2)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
WHERE c1 BETWEEN -10 AND 1000
GROUP BY window_start, window_end, c1;
