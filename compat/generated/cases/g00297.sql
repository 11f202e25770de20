-- data: g00297
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c5 SMALLINT, c2 TINYINT, a0 TINYINT, a1 DECIMAL(12, 3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c5, c2, AVG(c2), MAX(c1)
FROM TABLE(SESSION(TABLE events PARTITION BY (c5, c2), DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE c1 <> 0
GROUP BY window_start, window_end, c5, c2
HAVING COUNT(*) >= 3;
