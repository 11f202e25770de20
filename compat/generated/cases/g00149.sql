-- data: g00149
-- partitions: 1
-- mode: streaming
-- known-difference: LISTAGG(DISTINCT) order: Flink lists the values in its distinct map's (hash) order, lowwater in first-seen order
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 STRING, a1 STRING, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, LISTAGG(c0) FILTER (WHERE c1 IS NOT NULL), LISTAGG(DISTINCT c0), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND))
WHERE c1 <> 0
GROUP BY window_start, window_end
HAVING COUNT(*) > 1;
