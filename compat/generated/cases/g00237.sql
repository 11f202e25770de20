-- data: g00237
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c5 INT, a0 STRING, a1 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c5, LISTAGG(c0), SUM(DISTINCT c1)
FROM TABLE(SESSION(TABLE events PARTITION BY c5, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c5;
