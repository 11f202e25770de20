-- data: g00102
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 INT, c0 STRING, a0 INT, a1 DOUBLE, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, c0, STDDEV_SAMP(c2), STDDEV_SAMP(c1) FILTER (WHERE c0 = 'ü-ser'), COUNT(c1)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c2, c0;
