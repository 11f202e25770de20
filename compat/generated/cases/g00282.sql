-- data: g00282
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 STRING, a1 STRING, a2 STRING, a3 DECIMAL(38, 10)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, LISTAGG(c0), LISTAGG(c0, ''), LISTAGG(c0, '; ') FILTER (WHERE c0 IN ('b', 'a')), AVG(DISTINCT c1) FILTER (WHERE c1 < -1)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
GROUP BY window_start, window_end, c0;
