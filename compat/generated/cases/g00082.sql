-- data: g00082
-- partitions: 1
-- mode: streaming
-- known-difference: LISTAGG(DISTINCT) order: Flink lists the values in its distinct map's (hash) order, lowwater in first-seen order
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 FLOAT, a1 BIGINT, a2 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, VAR_POP(c2), COUNT(c1), LISTAGG(DISTINCT c1)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c0 <> 'b'
GROUP BY window_start, window_end;
