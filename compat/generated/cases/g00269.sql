-- data: g00269
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 SMALLINT, a0 BIGINT, a1 TINYINT, a2 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, COUNT(c1) FILTER (WHERE c1 IS NOT NULL), STDDEV_POP(c0) FILTER (WHERE c0 >= -1), MIN(c1)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c1
HAVING MIN(c1) < 10;
