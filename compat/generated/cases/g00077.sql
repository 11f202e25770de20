-- data: g00077
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 BIGINT, c2 BIGINT, a0 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, c2, SUM(c3)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
WHERE c0 BETWEEN -10 AND 1000
GROUP BY window_start, window_end, c3, c2
HAVING MIN(c3) < 10;
