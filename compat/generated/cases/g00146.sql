-- data: g00146
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DOUBLE, a1 INT, a2 INT, a3 DOUBLE, a4 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, STDDEV_SAMP(c2), STDDEV_POP(c0), AVG(DISTINCT c0), STDDEV_POP(c2) FILTER (WHERE c1 IS NULL), VAR_POP(c0)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND))
GROUP BY window_start, window_end;
