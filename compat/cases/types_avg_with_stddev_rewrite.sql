-- data: types
-- partitions: 1
-- mode: streaming
-- known-difference: Flink's planner rewrites AVG(x) into $SUM0(x) / COUNT(x) when the same query computes VAR or STDDEV, summing in the argument's own type, so AVG(FLOAT) sums in single precision (Infinity past its range) and AVG(INT) wraps at 32 bits; alone, AVG keeps a wider sum. lowwater keeps AVG's own accumulator whatever else the query computes
CREATE TABLE results (window_start TIMESTAMP(3), k STRING, a FLOAT, ai INT, sd FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, k, AVG(f32), AVG(i32), STDDEV_POP(f32)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '6' SECOND))
GROUP BY window_start, window_end, k;
