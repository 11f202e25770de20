-- data: g00141
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 INT, a0 STRING, a1 BIGINT, a2 STRING, a3 TINYINT, a4 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, LISTAGG(c2, '|'), COUNT(c0), MAX(DISTINCT c5), STDDEV_SAMP(c0), STDDEV_POP(c0)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
GROUP BY window_start, window_end, c3;
