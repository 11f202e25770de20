-- data: g00041
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 BIGINT, a1 DOUBLE, a2 INT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, COUNT(*), STDDEV_SAMP(c0), STDDEV_SAMP(c2), COUNT(c1)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))
GROUP BY window_start, window_end;
