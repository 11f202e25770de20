-- data: g00186
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 SMALLINT, a0 SMALLINT, a1 DECIMAL(38, 2)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, AVG(DISTINCT c3) FILTER (WHERE c3 IS NOT NULL), SUM(DISTINCT c0) FILTER (WHERE c1 IN ('ü-ser', 'A'))
FROM TABLE(SESSION(TABLE events PARTITION BY c3, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c2 IN ('a,b', 'a')
GROUP BY window_start, window_end, c3;
