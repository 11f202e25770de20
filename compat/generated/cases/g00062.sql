-- data: g00062
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 STRING, a0 STRING, a1 BIGINT, a2 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, MAX(c3), STDDEV_SAMP(c2), SUM(c0)
FROM TABLE(SESSION(TABLE events PARTITION BY c3, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c3;
