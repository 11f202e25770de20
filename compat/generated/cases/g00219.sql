-- data: g00219
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 SMALLINT, a0 TINYINT, a1 DOUBLE, a2 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, STDDEV_POP(c1) FILTER (WHERE c3 BETWEEN -10 AND 1000), STDDEV_POP(c2), STDDEV_SAMP(DISTINCT c1)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND))
WHERE c3 <> 0
GROUP BY window_start, window_end, c3;
