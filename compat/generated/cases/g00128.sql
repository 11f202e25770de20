-- data: g00128
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 STRING, a0 BIGINT, a1 STRING, a2 BIGINT, a3 DOUBLE, a4 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, COUNT(*) FILTER (WHERE c0 < 100), LISTAGG(c1), COUNT(c1), SUM(c2), STDDEV_SAMP(c2)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c0 > -1
GROUP BY window_start, window_end, c1;
