-- data: g00260
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 BOOLEAN, c0 STRING, a0 BIGINT, a1 BIGINT, a2 BIGINT, a3 STRING, a4 DECIMAL(38, 6)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, c0, COUNT(DISTINCT c2) FILTER (WHERE c0 > 'ü-ser'), COUNT(*), COUNT(c2), LISTAGG(DISTINCT c0, '; '), STDDEV_POP(c1)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
GROUP BY window_start, window_end, c2, c0;
