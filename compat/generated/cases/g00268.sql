-- data: g00268
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 TINYINT, a0 BIGINT, a1 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, COUNT(DISTINCT c1), LISTAGG(c0, '; ') FILTER (WHERE c3 > 100)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end, c2;
