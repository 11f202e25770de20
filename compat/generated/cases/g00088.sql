-- data: g00088
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 BIGINT, a0 BIGINT, a1 INT, a2 STRING, a3 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, STDDEV_SAMP(c0), MIN(c2), MIN(DISTINCT c4), STDDEV_POP(c3)
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c2 BETWEEN -10 AND 1000
GROUP BY window_start, window_end, c0;
