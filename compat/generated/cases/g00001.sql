-- data: g00001
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 FLOAT, a1 FLOAT, a2 SMALLINT, a3 STRING, a4 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, VAR_POP(c2), AVG(DISTINCT c2), SUM(c1), LISTAGG(c0, '; '), STDDEV_SAMP(c1)
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c0;
