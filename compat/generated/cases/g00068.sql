-- data: g00068
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 BOOLEAN, a0 BIGINT, a1 STRING, a2 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, SUM(c4) FILTER (WHERE c2 IS NULL), MAX(DISTINCT c0), STDDEV_SAMP(c1)
FROM TABLE(SESSION(TABLE events PARTITION BY c3, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c3;
