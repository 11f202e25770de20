-- data: g00016
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 STRING, a0 FLOAT, a1 BIGINT, a2 FLOAT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, SUM(c2), COUNT(c0), STDDEV_POP(c2), COUNT(c3) FILTER (WHERE c3 < 0)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c1;
