-- data: g00279
-- partitions: 1
-- mode: streaming
-- known-difference: AVG of an integer type over extreme values: the sum overflows differently
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 STRING, a0 INT, a1 DOUBLE, a2 BIGINT, a3 DOUBLE, a4 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, SUM(c4), STDDEV_SAMP(c0), COUNT(*), AVG(c0), AVG(c1)
FROM TABLE(SESSION(TABLE events PARTITION BY c2, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c2;
