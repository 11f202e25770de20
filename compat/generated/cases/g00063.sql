-- data: g00063
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 BIGINT, a1 STRING, a2 BIGINT, a3 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, COUNT(DISTINCT c2), LISTAGG(DISTINCT c0, '-->'), COUNT(c0), VAR_SAMP(c1) FILTER (WHERE c3 = 'ü-ser')
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE c0 <> 'c'
GROUP BY window_start, window_end, c0
HAVING COUNT(*) >= 3;
