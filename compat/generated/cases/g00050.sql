-- data: g00050
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 FLOAT, a1 STRING, a2 DOUBLE, a3 DOUBLE, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, AVG(c0), LISTAGG(c3), STDDEV_POP(DISTINCT c1) FILTER (WHERE c4 < -1), LAST_VALUE(c4) FILTER (WHERE c3 <> 'b'), COUNT(c0)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE c3 IN ('A', 'ü-ser')
GROUP BY window_start, window_end;
