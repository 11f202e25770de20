-- data: g00138
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 STRING, a0 STRING, a1 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, LISTAGG(c1, '|'), COUNT(*)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c1;
