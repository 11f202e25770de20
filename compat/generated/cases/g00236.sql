-- data: g00236
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 SMALLINT, a0 DOUBLE, a1 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, MIN(c1), LISTAGG(c0)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c0 IS NOT NULL
GROUP BY window_start, window_end, c2
HAVING COUNT(*) > 1;
