-- data: g00079
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DOUBLE, a1 DOUBLE, a2 DOUBLE, a3 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, SUM(DISTINCT c1) FILTER (WHERE c0 IS NOT NULL), VAR_SAMP(c1), STDDEV_POP(c1), LISTAGG(c0) FILTER (WHERE c2)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND))
GROUP BY window_start, window_end;
