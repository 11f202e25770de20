-- data: g00145
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, c3 TINYINT, a0 STRING, a1 TINYINT, a2 STRING, a3 DOUBLE, a4 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, c3, LISTAGG(c0, '; ') FILTER (WHERE c4 < -1), SUM(c3), MAX(c2), SUM(c4) FILTER (WHERE c0 IN ('c', 'a')), SUM(c4)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
GROUP BY window_start, window_end, c0, c3;
