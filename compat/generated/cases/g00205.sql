-- data: g00205
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 STRING, c0 STRING, a0 SMALLINT, a1 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, c0, AVG(c1), STDDEV_POP(c1) FILTER (WHERE c4 = 'zz')
FROM TABLE(SESSION(TABLE events PARTITION BY (c2, c0), DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c3 IN ('', 'A')
GROUP BY window_start, window_end, c2, c0;
