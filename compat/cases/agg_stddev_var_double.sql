-- data: clicks
-- partitions: 3
-- known-difference: STDDEV/VAR follow Calcite's reduction (SUM(x*x), SUM(x), COUNT(x)) in the argument's type; Flink's intermediate arithmetic differs (INT: VAR_SAMP off by one in 3 of 32 rows; DOUBLE: the last digits), not found yet
CREATE TABLE results (window_start TIMESTAMP(3), sp DOUBLE, ss DOUBLE, vp DOUBLE, vs DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, STDDEV_POP(price), STDDEV_SAMP(price), VAR_POP(price), VAR_SAMP(price)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
