-- data: g00178
-- partitions: 1
-- mode: streaming
-- known-difference: LISTAGG(DISTINCT) order: Flink lists the values in its distinct map's (hash) order, lowwater in first-seen order
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, LISTAGG(DISTINCT c0)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end
HAVING COUNT(*) >= 3;
