-- data: g00231
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 INT, a0 INT, a1 DECIMAL(3, 1), a2 INT, a3 INT, a4 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, STDDEV_SAMP(c0) FILTER (WHERE c0 > 100), MAX(c1) FILTER (WHERE c1 IS NOT NULL), STDDEV_POP(c0), VAR_SAMP(c0), MAX(c0)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND))
GROUP BY window_start, window_end, c0
HAVING COUNT(*) > 1;
