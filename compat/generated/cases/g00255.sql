-- data: g00255
-- partitions: 1
-- mode: streaming
-- known-difference: LISTAGG order in HOP/CUMULATE/SESSION: Flink concatenates slices (merged sessions) in their order
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 BOOLEAN, a0 STRING, a1 BOOLEAN, a2 BIGINT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, LISTAGG(c0, '') FILTER (WHERE c0 IS NOT NULL), MAX(c1), COUNT(c0), COUNT(c1)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c1;
