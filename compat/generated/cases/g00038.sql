-- data: g00038
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 SMALLINT, a0 DECIMAL(12, 3), a1 BIGINT, a2 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, MAX(DISTINCT c0), COUNT(*), SUM(c2)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
WHERE c1 >= 5
GROUP BY window_start, window_end, c2
HAVING MIN(c0) < 10;
