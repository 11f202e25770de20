-- data: g00033
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 BIGINT, a1 STRING, a2 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, COUNT(*), FIRST_VALUE(c5), LISTAGG(c5)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c3 IS NOT NULL
GROUP BY window_start, window_end
HAVING COUNT(*) > 1;
