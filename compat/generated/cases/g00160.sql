-- data: g00160
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 BIGINT, a1 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, COUNT(*), VAR_POP(c1) FILTER (WHERE c1 >= 3.3)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end, c0
HAVING MIN(c1) < 10;
