-- data: g00262
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 DECIMAL(38, 10), a1 STRING, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, VAR_POP(c1) FILTER (WHERE c1 <> 0), LISTAGG(DISTINCT c2) FILTER (WHERE c0 > ''), COUNT(DISTINCT c3)
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c3 >= -1
GROUP BY window_start, window_end, c0;
