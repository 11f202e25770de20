-- data: g00228
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 BIGINT, a1 BIGINT, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, SUM(c2), SUM(DISTINCT c2), VAR_POP(c2) FILTER (WHERE c0 IN ('b', ''))
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND))
WHERE c1 IS NOT NULL
GROUP BY window_start, window_end, c0
HAVING SUM(c2) > 0;
