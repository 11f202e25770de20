-- data: g00025
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c4 TINYINT, a0 BIGINT, a1 BIGINT, a2 BIGINT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c4, COUNT(DISTINCT c3) FILTER (WHERE c3 IN ('ü-ser', 'c')), COUNT(*), STDDEV_POP(c1), MAX(DISTINCT c1) FILTER (WHERE c2 <> 0)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '30' SECOND))
GROUP BY window_start, window_end, c4;
