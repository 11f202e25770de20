-- data: g00135
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 FLOAT, a1 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, MAX(c3) FILTER (WHERE c3 >= -1), VAR_POP(c1) FILTER (WHERE c1 BETWEEN -10 AND 1000)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
