-- data: g00101
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 BIGINT, a1 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, COUNT(DISTINCT c2) FILTER (WHERE c5 IN ('ü-ser', 'zz')), MAX(c4)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
GROUP BY window_start, window_end
HAVING SUM(c4) > 0;
