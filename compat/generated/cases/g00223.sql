-- data: g00223
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 BIGINT, a0 BIGINT, a1 BIGINT, a2 BIGINT, a3 BIGINT, a4 DECIMAL(38, 3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, AVG(c2), STDDEV_SAMP(c2), COUNT(*), COUNT(*), SUM(c3)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND))
WHERE c1 IS NOT NULL
GROUP BY window_start, window_end, c2
HAVING SUM(c0) > 0;
