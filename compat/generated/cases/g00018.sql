-- data: g00018
-- partitions: 3
-- mode: streaming
-- known-difference: DOUBLE overflow (values near 1e300): Flink's Infinity/NaN/null differ from lowwater's
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 SMALLINT, a0 DOUBLE, a1 DOUBLE, a2 DOUBLE, a3 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, STDDEV_POP(c2), VAR_POP(c2), MIN(c2) FILTER (WHERE c2 <> 0), SUM(c0)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
GROUP BY window_start, window_end, c0;
