-- data: g00150
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 BIGINT, c1 BIGINT, a0 BIGINT, a1 BIGINT, a2 FLOAT, a3 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, c1, FIRST_VALUE(c2), COUNT(c2) FILTER (WHERE c0 IS NOT NULL), MAX(DISTINCT c3), STDDEV_POP(c3)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c1 >= -1
GROUP BY window_start, window_end, c2, c1;
