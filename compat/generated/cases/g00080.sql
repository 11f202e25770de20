-- data: g00080
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 STRING, a0 DECIMAL(38, 6), a1 DECIMAL(5, 0), a2 DECIMAL(38, 6)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, STDDEV_POP(c0), LAST_VALUE(c2) FILTER (WHERE c1 IN ('', '')), STDDEV_POP(c0) FILTER (WHERE c1 <> 'ü-ser')
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c2 < 3.3
GROUP BY window_start, window_end, c1;
