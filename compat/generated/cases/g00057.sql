-- data: g00057
-- partitions: 3
-- mode: streaming
-- known-difference: DOUBLE overflow (values near 1e300): Flink's Infinity/NaN/null differ from lowwater's
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DOUBLE, a1 DOUBLE, a2 BIGINT, a3 DOUBLE, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, MIN(c0), SUM(c0), COUNT(*), STDDEV_SAMP(c0), COUNT(c0)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '30' SECOND))
GROUP BY window_start, window_end;
