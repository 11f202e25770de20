-- data: g00036
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 TINYINT, a0 BIGINT, a1 FLOAT, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, COUNT(c3), SUM(DISTINCT c2) FILTER (WHERE c0 IN ('c', '')), COUNT(*)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c1;
