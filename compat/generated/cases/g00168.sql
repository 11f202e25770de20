-- data: g00168
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 STRING, a1 BIGINT, a2 DOUBLE, a3 BIGINT, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, LISTAGG(DISTINCT c0) FILTER (WHERE c1 BETWEEN -10 AND 1000), COUNT(*), SUM(c1) FILTER (WHERE c0 <> 'zz'), COUNT(*), COUNT(c0)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end, c0
HAVING COUNT(*) >= 3;
