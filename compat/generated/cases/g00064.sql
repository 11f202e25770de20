-- data: g00064
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 STRING, c4 TINYINT, a0 SMALLINT, a1 BIGINT, a2 DECIMAL(38, 6), a3 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, c4, MAX(c0), COUNT(*), AVG(DISTINCT c2), MIN(c3)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '5' SECOND))
WHERE NOT c1
GROUP BY window_start, window_end, c3, c4
HAVING COUNT(*) > 1;
