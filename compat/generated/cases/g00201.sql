-- data: g00201
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 BIGINT, a1 DECIMAL(38, 2), a2 DECIMAL(38, 6), a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, COUNT(*), SUM(c1), VAR_POP(c1), COUNT(DISTINCT c1)
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c0
HAVING COUNT(*) > 1;
