-- data: g00030
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c4 BIGINT, c2 TINYINT, a0 STRING, a1 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c4, c2, LISTAGG(c0), SUM(c5)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND))
GROUP BY window_start, window_end, c4, c2;
