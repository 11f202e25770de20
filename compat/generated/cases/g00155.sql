-- data: g00155
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c5 STRING, a0 DECIMAL(38, 2), a1 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c5, SUM(DISTINCT c3), COUNT(c3)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c5;
