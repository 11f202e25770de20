-- data: g00012
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 STRING, a0 FLOAT, a1 STRING, a2 FLOAT, a3 DOUBLE, a4 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, MAX(c0), LISTAGG(c1) FILTER (WHERE c1 IS NOT NULL), STDDEV_SAMP(c0), STDDEV_POP(DISTINCT c2), SUM(DISTINCT c0)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c1;
