-- data: g00091
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 INT, a1 INT, a2 INT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, SUM(c1), VAR_POP(c1), SUM(c1), COUNT(c0)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c1 >= 5
GROUP BY window_start, window_end;
