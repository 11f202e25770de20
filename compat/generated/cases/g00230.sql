-- data: g00230
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 TINYINT, a0 STRING, a1 TINYINT, a2 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, LISTAGG(c1, '-->'), SUM(DISTINCT c2), STDDEV_POP(c2)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c2
HAVING MIN(c0) < 10;
