-- data: g00291
-- partitions: 1
-- mode: streaming
-- known-difference: LISTAGG order in HOP/CUMULATE/SESSION: Flink concatenates slices (merged sessions) in their order
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 BIGINT, a1 DECIMAL(38, 6), a2 SMALLINT, a3 SMALLINT, a4 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, COUNT(DISTINCT c3), STDDEV_SAMP(c2), STDDEV_SAMP(c1), STDDEV_POP(c1), LISTAGG(c4, '|')
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c0;
