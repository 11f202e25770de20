-- data: g00125
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 FLOAT, a1 FLOAT, a2 FLOAT, a3 FLOAT, a4 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, SUM(c2) FILTER (WHERE c1), STDDEV_SAMP(c2), STDDEV_POP(c2), SUM(c2), LAST_VALUE(c2)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
