-- data: g00244
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 SMALLINT, a0 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, LISTAGG(c2)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '12' SECOND))
GROUP BY window_start, window_end, c3
HAVING MIN(c3) < 10;
