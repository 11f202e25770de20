-- data: g00210
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 INT, a0 INT, a1 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, SUM(c2), STDDEV_SAMP(c2) FILTER (WHERE c1 > 100)
FROM TABLE(SESSION(TABLE events PARTITION BY c2, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c2 IS NOT NULL
GROUP BY window_start, window_end, c2;
