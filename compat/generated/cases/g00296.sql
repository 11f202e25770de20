-- data: g00296
-- partitions: 3
-- mode: streaming
-- known-difference: DOUBLE overflow (values near 1e300): Flink's Infinity/NaN/null differ from lowwater's
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DOUBLE, a1 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, AVG(c1), VAR_POP(c1)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end;
