-- data: g00292
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 INT, c0 STRING, a0 STRING, a1 BIGINT, a2 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, c0, LISTAGG(c0, '-->'), COUNT(c1), MIN(c2)
FROM TABLE(SESSION(TABLE events PARTITION BY (c1, c0), DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c1, c0;
