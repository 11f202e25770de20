-- data: g00142
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 INT, a1 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, LAST_VALUE(c1) FILTER (WHERE c5 <> 0), VAR_POP(c1)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
WHERE c4 <> 0
GROUP BY window_start, window_end, c0
HAVING MIN(c1) < 10;
