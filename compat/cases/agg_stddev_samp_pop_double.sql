-- data: clicks
-- partitions: 1
CREATE TABLE results (window_start TIMESTAMP(3), sp DOUBLE, ss DOUBLE, vp DOUBLE, vs DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, STDDEV_POP(CAST(amount AS DOUBLE)), STDDEV_SAMP(CAST(amount AS DOUBLE)), VAR_POP(CAST(amount AS DOUBLE)), VAR_SAMP(CAST(amount AS DOUBLE))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
WHERE amount BETWEEN -5 AND 5
GROUP BY window_start, window_end;
