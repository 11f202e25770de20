-- data: g00203
-- partitions: 1
-- mode: streaming
-- known-difference: LISTAGG(DISTINCT) order: Flink lists the values in its distinct map's (hash) order, lowwater in first-seen order
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 STRING, a1 TINYINT, a2 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, LISTAGG(DISTINCT c1), SUM(DISTINCT c0) FILTER (WHERE c0 BETWEEN -10 AND 1000), MIN(DISTINCT c1)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND))
GROUP BY window_start, window_end
HAVING SUM(c0) > 0;
