-- data: g00008
-- partitions: 1
-- mode: streaming
-- known-difference: lowwater rejects what Flink accepts: STDDEV_SAMP of a DECIMAL is not supported yet; CAST the argument to DOUBLE
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DECIMAL(38, 10), a1 STRING, a2 BIGINT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, STDDEV_SAMP(c1), LISTAGG(c0, '|'), COUNT(DISTINCT c0), COUNT(DISTINCT c1)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end
HAVING MIN(c1) < 10;
