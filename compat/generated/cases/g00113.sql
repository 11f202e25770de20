-- data: g00113
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 TINYINT, a0 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, STDDEV_POP(c1)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c1 >= -1
GROUP BY window_start, window_end, c1
HAVING COUNT(*) > 1;
