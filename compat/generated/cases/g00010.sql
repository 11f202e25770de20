-- data: g00010
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c5 BIGINT, c3 BOOLEAN, a0 TINYINT, a1 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c5, c3, SUM(c0), SUM(DISTINCT c0)
FROM TABLE(SESSION(TABLE events PARTITION BY (c5, c3), DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c5, c3
HAVING MAX(c0) IS NOT NULL;
