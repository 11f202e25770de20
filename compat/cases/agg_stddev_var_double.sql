-- data: clicks
-- partitions: 3
-- double-tolerance: 1e-12 (VAR and STDDEV update a running mean in arrival order; Flink's batch run feeds the first window's rows in another order, which changes the last digits)
CREATE TABLE results (window_start TIMESTAMP(3), sp DOUBLE, ss DOUBLE, vp DOUBLE, vs DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, STDDEV_POP(price), STDDEV_SAMP(price), VAR_POP(price), VAR_SAMP(price)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
