-- data: g00095
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 BIGINT, a1 TINYINT, a2 STRING, a3 BIGINT, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, COUNT(*), STDDEV_SAMP(c4), MAX(c3), COUNT(c4), COUNT(c1)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c1 > ''
GROUP BY window_start, window_end;
