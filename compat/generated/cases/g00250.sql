-- data: g00250
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c4 TINYINT, a0 STRING, a1 DECIMAL(38, 6)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c4, LISTAGG(DISTINCT c2) FILTER (WHERE c4 IS NOT NULL), AVG(c0)
FROM TABLE(SESSION(TABLE events PARTITION BY c4, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c1 BETWEEN -10 AND 1000
GROUP BY window_start, window_end, c4
HAVING COUNT(*) > 1;
