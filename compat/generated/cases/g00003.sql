-- data: g00003
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 BOOLEAN, c2 INT, a0 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, c2, VAR_POP(c2)
FROM TABLE(SESSION(TABLE events PARTITION BY (c0, c2), DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c0, c2;
