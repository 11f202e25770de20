-- data: g00171
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c5 INT, a0 INT, a1 SMALLINT, a2 BIGINT, a3 BIGINT, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c5, VAR_SAMP(c5), MAX(c2), COUNT(*) FILTER (WHERE c3), COUNT(DISTINCT c5), COUNT(c0)
FROM TABLE(SESSION(TABLE events PARTITION BY c5, DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE c3 IS NULL
GROUP BY window_start, window_end, c5
HAVING MAX(c5) IS NOT NULL;
