-- data: g00056
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 TINYINT, a0 FLOAT, a1 BIGINT, a2 BIGINT, a3 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, STDDEV_POP(c3), COUNT(c1), COUNT(DISTINCT c1), MAX(DISTINCT c0)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '8' SECOND))
GROUP BY window_start, window_end, c0;
