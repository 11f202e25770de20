-- data: g00084
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 TINYINT, a0 TINYINT, a1 TINYINT, a2 STRING, a3 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, MIN(DISTINCT c0), AVG(c2) FILTER (WHERE c3 > 'zz'), FIRST_VALUE(c1), VAR_POP(c2)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c0;
