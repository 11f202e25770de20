-- data: g00187
-- partitions: 1
-- mode: streaming
-- known-difference: lowwater accepts what Flink rejects: the SESSION aggregate becomes a GroupAggregate (update changes the sink refuses)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 STRING, a1 BIGINT, a2 STRING, a3 BIGINT, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, LISTAGG(c0, '-->'), COUNT(DISTINCT c2), LISTAGG(DISTINCT c0, ''), COUNT(DISTINCT c1), COUNT(DISTINCT c2)
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c0 IN ('', '')
GROUP BY window_start, window_end, c0;
