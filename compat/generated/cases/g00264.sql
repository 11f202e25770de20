-- data: g00264
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 BIGINT, a1 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, COUNT(DISTINCT c5), VAR_POP(c2) FILTER (WHERE c0 BETWEEN -10 AND 1000)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c2 BETWEEN -10 AND 1000
GROUP BY window_start, window_end
HAVING COUNT(*) > 1;
