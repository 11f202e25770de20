-- data: g00136
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 STRING, a0 DECIMAL(38, 3), a1 BIGINT, a2 BIGINT, a3 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, SUM(DISTINCT c3), COUNT(c1), STDDEV_SAMP(c5), LISTAGG(c4, '|')
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE c2 IS NOT NULL
GROUP BY window_start, window_end, c1;
