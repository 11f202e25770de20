-- data: g00096
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 SMALLINT, a0 DOUBLE, a1 SMALLINT, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, SUM(DISTINCT c0), SUM(DISTINCT c3), VAR_SAMP(c2)
FROM TABLE(SESSION(TABLE events PARTITION BY c3, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c3;
