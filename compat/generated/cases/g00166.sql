-- data: g00166
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 BIGINT, a1 DECIMAL(12, 3), a2 DECIMAL(38, 6), a3 BIGINT, a4 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, COUNT(DISTINCT c1), MAX(c2), AVG(DISTINCT c1), COUNT(*), LISTAGG(c0, '-->')
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end;
