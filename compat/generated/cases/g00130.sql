-- data: g00130
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DOUBLE, a1 FLOAT, a2 BIGINT, a3 STRING, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, STDDEV_SAMP(c5), LAST_VALUE(c1), COUNT(DISTINCT c5), MIN(DISTINCT c2), COUNT(c4)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
