-- data: g00206
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 SMALLINT, a0 FLOAT, a1 SMALLINT, a2 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, SUM(c1), AVG(DISTINCT c0), STDDEV_POP(c1)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND))
GROUP BY window_start, window_end, c0
HAVING COUNT(*) > 1;
