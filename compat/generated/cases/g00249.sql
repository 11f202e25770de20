-- data: g00249
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 BOOLEAN, c1 BOOLEAN, a0 BIGINT, a1 BIGINT, a2 BIGINT, a3 FLOAT, a4 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, c1, COUNT(*) FILTER (WHERE c3), COUNT(DISTINCT c2), COUNT(c1), MAX(c2), VAR_SAMP(c2)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '30' SECOND))
GROUP BY window_start, window_end, c0, c1;
