-- data: g00247
-- partitions: 1
-- mode: streaming
-- known-difference: LISTAGG(DISTINCT) order: Flink lists the values in its distinct map's (hash) order, lowwater in first-seen order
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 TINYINT, a0 STRING, a1 STRING, a2 DOUBLE, a3 BIGINT, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, LISTAGG(DISTINCT c3, '|'), LISTAGG(c3, '; '), AVG(c0), COUNT(c1), COUNT(*) FILTER (WHERE c1 <> 0)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
GROUP BY window_start, window_end, c1
HAVING MIN(c1) < 10;
