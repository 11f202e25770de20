-- data: g00185
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 STRING, a1 INT, a2 BIGINT, a3 INT, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, MIN(DISTINCT c0), STDDEV_SAMP(c1), COUNT(DISTINCT c1), MAX(c1), COUNT(c1)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '8' SECOND))
WHERE c0 = ''
GROUP BY window_start, window_end, c0;
