-- data: g00248
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 STRING, a0 BIGINT, a1 SMALLINT, a2 BIGINT, a3 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, MAX(DISTINCT c1) FILTER (WHERE c4 IS NOT NULL), SUM(c3), SUM(c1) FILTER (WHERE c1 < 0), SUM(c3)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c2
HAVING SUM(c4) > 0;
