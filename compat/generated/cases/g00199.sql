-- data: g00199
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 FLOAT, a1 STRING, a2 TINYINT, a3 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, SUM(c1), MIN(c0), MAX(DISTINCT c3), STDDEV_SAMP(c1)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end
HAVING SUM(c2) > 0;
