-- data: g00034
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 BIGINT, a0 TINYINT, a1 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, MAX(c2), LISTAGG(c0, '; ')
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c0 > ''
GROUP BY window_start, window_end, c3;
