-- data: g00069
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 INT, a1 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, FIRST_VALUE(c1), LISTAGG(c0, '; ') FILTER (WHERE c0 = '')
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c0;
