-- data: g00288
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 STRING, a1 STRING, a2 TINYINT, a3 BIGINT, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, LAST_VALUE(c0) FILTER (WHERE c3 BETWEEN -10 AND 1000), LISTAGG(DISTINCT c1, '') FILTER (WHERE c1 = 'zz'), SUM(c3), COUNT(*), COUNT(DISTINCT c3)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND))
WHERE c2 IN ('ü-ser', 'zz')
GROUP BY window_start, window_end;
