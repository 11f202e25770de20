-- data: g00147
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 INT, a1 DECIMAL(38, 6), a2 INT, a3 INT, a4 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, STDDEV_POP(c0), AVG(c1) FILTER (WHERE c2 > 'b'), STDDEV_SAMP(c0), STDDEV_SAMP(c5), LISTAGG(c2)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end;
