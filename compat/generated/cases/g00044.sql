-- data: g00044
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 BIGINT, a1 BIGINT, a2 DECIMAL(38, 10), a3 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, COUNT(c2), COUNT(DISTINCT c4), STDDEV_POP(DISTINCT c4) FILTER (WHERE c1 > 'a,b'), VAR_POP(c3)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND))
WHERE c1 IN ('', 'a,b')
GROUP BY window_start, window_end;
