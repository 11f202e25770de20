-- data: g00058
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c5 STRING, c0 BIGINT, a0 BIGINT, a1 BIGINT, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c5, c0, STDDEV_SAMP(c2), SUM(c0), COUNT(c5)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND))
WHERE c4 > 1
GROUP BY window_start, window_end, c5, c0
HAVING COUNT(*) >= 3;
