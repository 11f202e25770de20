-- data: g00274
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 STRING, a1 DECIMAL(38, 6), a2 STRING, a3 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, LISTAGG(c0, '|'), AVG(c2), LISTAGG(c0, '; '), FIRST_VALUE(c1)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND))
WHERE c2 BETWEEN -10 AND 1000
GROUP BY window_start, window_end, c0
HAVING MIN(c1) < 10;
