-- data: g00097
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 STRING, a1 BIGINT, a2 BIGINT, a3 BIGINT, a4 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, LISTAGG(c0, '; ') FILTER (WHERE c2 BETWEEN -10 AND 1000), COUNT(*) FILTER (WHERE c0 <> 'c'), COUNT(DISTINCT c0), COUNT(c2), SUM(c1)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end;
