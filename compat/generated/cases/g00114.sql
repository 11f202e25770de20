-- data: g00114
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 BOOLEAN, c1 SMALLINT, a0 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, c1, MIN(DISTINCT c2) FILTER (WHERE c2 < 1)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
WHERE c0
GROUP BY window_start, window_end, c0, c1
HAVING COUNT(*) > 1;
