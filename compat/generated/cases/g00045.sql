-- data: g00045
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 SMALLINT, a0 BIGINT, a1 BIGINT, a2 FLOAT, a3 BIGINT, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, COUNT(c2), COUNT(*), SUM(c2), COUNT(DISTINCT c3), COUNT(*)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND))
WHERE c1 > 'zz'
GROUP BY window_start, window_end, c3
HAVING COUNT(*) > 1;
