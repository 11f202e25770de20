-- data: g00246
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DECIMAL(5, 0), a1 STRING, a2 STRING, a3 DECIMAL(38, 0), a4 DECIMAL(38, 6)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, MAX(c1), LISTAGG(c0, '; '), MIN(c0), SUM(DISTINCT c1), STDDEV_SAMP(c1)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '6' SECOND))
WHERE c1 IS NOT NULL
GROUP BY window_start, window_end
HAVING SUM(c1) > 0;
