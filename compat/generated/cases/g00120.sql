-- data: g00120
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 BOOLEAN, a0 BIGINT, a1 BIGINT, a2 BIGINT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, VAR_SAMP(c1), VAR_POP(DISTINCT c0), AVG(DISTINCT c1), COUNT(c3)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end, c2
HAVING SUM(c4) > 0;
