-- data: g00023
-- partitions: 1
-- mode: streaming
-- known-difference: SUM/AVG of FLOAT: last bits (known)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 FLOAT, a1 TINYINT, a2 BIGINT, a3 FLOAT, a4 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, STDDEV_POP(c3), SUM(c1), COUNT(DISTINCT c1) FILTER (WHERE NOT c2), AVG(DISTINCT c3), LISTAGG(DISTINCT c0)
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c0;
