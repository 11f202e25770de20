-- data: g00214
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 STRING, c4 STRING, a0 DECIMAL(38, 6), a1 FLOAT, a2 BIGINT, a3 FLOAT, a4 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, c4, STDDEV_POP(c1), STDDEV_POP(c2), COUNT(c1), STDDEV_POP(c2), MAX(DISTINCT c0) FILTER (WHERE c3 > 'a')
FROM TABLE(SESSION(TABLE events PARTITION BY (c3, c4), DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c3, c4;
