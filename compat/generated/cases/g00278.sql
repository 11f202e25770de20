-- data: g00278
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 TINYINT, a0 TINYINT, a1 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, SUM(DISTINCT c2), MAX(c3)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c2 BETWEEN -10 AND 1000
GROUP BY window_start, window_end, c2
HAVING MAX(c2) IS NOT NULL;
