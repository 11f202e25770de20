-- data: g00046
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 TINYINT, a0 STRING, a1 TINYINT, a2 TINYINT, a3 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, LISTAGG(c0, '|'), VAR_SAMP(c1), SUM(c1) FILTER (WHERE c1 <> 0), AVG(DISTINCT c1)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c0 > 'a,b'
GROUP BY window_start, window_end, c1;
