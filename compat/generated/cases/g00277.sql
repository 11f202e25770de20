-- data: g00277
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 INT, a0 BIGINT, a1 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, COUNT(c0) FILTER (WHERE c1 IS NOT NULL), STDDEV_SAMP(c1)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
WHERE c0 BETWEEN -10 AND 1000
GROUP BY window_start, window_end, c0
HAVING MAX(c0) IS NOT NULL;
