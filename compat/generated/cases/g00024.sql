-- data: g00024
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 BIGINT, a0 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, LISTAGG(c0, '; ')
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
WHERE c4 BETWEEN -10 AND 1000
GROUP BY window_start, window_end, c2;
