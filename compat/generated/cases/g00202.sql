-- data: g00202
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 BIGINT, c0 STRING, a0 BIGINT, a1 BIGINT, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, c0, VAR_SAMP(c2), STDDEV_SAMP(c3) FILTER (WHERE c4 IS NOT NULL), AVG(DISTINCT c3)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c3, c0;
