-- data: g00182
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 BIGINT, a0 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, STDDEV_SAMP(c3)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE c1 >= 5
GROUP BY window_start, window_end, c1
HAVING MAX(c1) IS NOT NULL;
