-- data: g00104
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, c1 BIGINT, a0 BIGINT, a1 STRING, a2 BIGINT, a3 BIGINT, a4 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, c1, MAX(DISTINCT c1), MAX(DISTINCT c0), AVG(c1), SUM(c1) FILTER (WHERE c1 < 100), MIN(DISTINCT c0)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '8' SECOND))
GROUP BY window_start, window_end, c0, c1
HAVING COUNT(*) >= 3;
