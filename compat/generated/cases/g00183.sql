-- data: g00183
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 TINYINT, a1 TINYINT, a2 TINYINT, a3 STRING, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, VAR_SAMP(c1), VAR_POP(c1), SUM(DISTINCT c1), LISTAGG(c0), COUNT(c1)
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c0 > ''
GROUP BY window_start, window_end, c0
HAVING MAX(c1) IS NOT NULL;
