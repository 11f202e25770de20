-- data: g00270
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 BOOLEAN, a0 BIGINT, a1 BIGINT, a2 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, COUNT(c1) FILTER (WHERE c2 IS NOT TRUE), COUNT(*), SUM(c0) FILTER (WHERE c1 BETWEEN -10 AND 1000)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end, c2;
