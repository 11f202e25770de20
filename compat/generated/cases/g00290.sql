-- data: g00290
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 STRING, c5 BIGINT, a0 BOOLEAN, a1 INT, a2 TINYINT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, c5, MAX(c2) FILTER (WHERE c1 IN ('zz', 'zz')), MAX(DISTINCT c4), MIN(DISTINCT c3), COUNT(c3)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
WHERE c0 > 1
GROUP BY window_start, window_end, c1, c5;
