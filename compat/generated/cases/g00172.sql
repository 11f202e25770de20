-- data: g00172
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 BIGINT, a0 BIGINT, a1 DOUBLE, a2 BIGINT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, COUNT(DISTINCT c3), MIN(c3) FILTER (WHERE c1 IS NOT NULL), VAR_POP(c1), COUNT(*)
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c0;
