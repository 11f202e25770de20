-- data: g00256
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c4 TINYINT, a0 DECIMAL(38, 3), a1 STRING, a2 TINYINT, a3 STRING, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c4, SUM(c1), MAX(DISTINCT c0), VAR_SAMP(c4), LISTAGG(c0), COUNT(*)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c4
HAVING MAX(c1) IS NOT NULL;
