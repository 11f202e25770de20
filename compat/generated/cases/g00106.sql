-- data: g00106
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 STRING, c3 STRING, a0 BIGINT, a1 STRING, a2 STRING, a3 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, c3, COUNT(c1), MIN(c2), MIN(c1), STDDEV_POP(c4)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '8' SECOND))
WHERE c4 < -1
GROUP BY window_start, window_end, c2, c3;
