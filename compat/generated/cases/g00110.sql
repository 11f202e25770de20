-- data: g00110
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 STRING, a1 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, LISTAGG(c3) FILTER (WHERE c3 IN ('b', 'b')), COUNT(c4)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE c3 IS NOT NULL
GROUP BY window_start, window_end;
