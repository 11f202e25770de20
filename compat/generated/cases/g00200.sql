-- data: g00200
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 TINYINT, a0 TINYINT, a1 STRING, a2 BIGINT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, VAR_POP(c1), LISTAGG(c0) FILTER (WHERE c0 = 'A'), COUNT(c1), COUNT(DISTINCT c1)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))
WHERE c1 BETWEEN -10 AND 1000
GROUP BY window_start, window_end, c1;
