-- data: g00181
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 BIGINT, a1 FLOAT, a2 FLOAT, a3 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, SUM(c4), MAX(c5), MIN(c5), STDDEV_POP(DISTINCT c2)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE c4 > -1
GROUP BY window_start, window_end;
