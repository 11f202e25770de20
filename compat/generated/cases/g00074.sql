-- data: g00074
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c5 INT, a0 SMALLINT, a1 SMALLINT, a2 STRING, a3 SMALLINT, a4 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c5, MAX(c3), AVG(c1), LISTAGG(c0, ''), VAR_POP(c3) FILTER (WHERE c1 IS NOT NULL), SUM(c2)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c5;
