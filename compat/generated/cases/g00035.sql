-- data: g00035
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 INT, a0 DECIMAL(12, 3), a1 FLOAT, a2 INT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, FIRST_VALUE(DISTINCT c5), LAST_VALUE(c4) FILTER (WHERE c5 > 0), AVG(DISTINCT c1), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, c3;
