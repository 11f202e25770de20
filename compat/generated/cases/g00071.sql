-- data: g00071
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, MIN(DISTINCT c2) FILTER (WHERE c2 < 1)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c1
GROUP BY window_start, window_end
HAVING MAX(c3) IS NOT NULL;
