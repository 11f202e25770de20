-- data: g00298
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 INT, a0 STRING, a1 STRING, a2 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, MIN(c1), LISTAGG(DISTINCT c1), STDDEV_SAMP(c2)
FROM TABLE(SESSION(TABLE events PARTITION BY c2, DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE c2 < 1
GROUP BY window_start, window_end, c2
HAVING MIN(c2) < 10;
