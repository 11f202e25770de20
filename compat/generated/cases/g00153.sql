-- data: g00153
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 TINYINT, a1 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, AVG(c1), LISTAGG(c0, '; ')
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '8' SECOND))
WHERE c0 IS NOT NULL
GROUP BY window_start, window_end, c0
HAVING MIN(c2) < 10;
