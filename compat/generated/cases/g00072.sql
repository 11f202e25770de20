-- data: g00072
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 INT, a1 INT, a2 STRING, a3 STRING, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, VAR_SAMP(c1), STDDEV_POP(c1), LISTAGG(c0), MIN(DISTINCT c0), COUNT(DISTINCT c0)
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c0;
