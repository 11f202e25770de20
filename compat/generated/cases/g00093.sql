-- data: g00093
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 SMALLINT, a0 STRING, a1 DOUBLE, a2 DOUBLE, a3 BIGINT, a4 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, MIN(c0), STDDEV_POP(c1), SUM(c1), COUNT(c4), MIN(c4)
FROM TABLE(SESSION(TABLE events PARTITION BY c2, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c0 <> ''
GROUP BY window_start, window_end, c2;
