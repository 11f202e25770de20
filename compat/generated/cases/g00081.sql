-- data: g00081
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DOUBLE, a1 STRING, a2 DECIMAL(38, 6), a3 BIGINT, a4 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, VAR_POP(DISTINCT c1), MIN(c3) FILTER (WHERE c2 = ''), STDDEV_POP(c4), COUNT(DISTINCT c1), LISTAGG(c3)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE c4 BETWEEN -10 AND 1000
GROUP BY window_start, window_end;
