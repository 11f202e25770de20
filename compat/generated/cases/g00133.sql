-- data: g00133
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DOUBLE, a1 STRING, a2 STRING, a3 DOUBLE, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, STDDEV_SAMP(c0) FILTER (WHERE c3 IS NULL), LISTAGG(c1), MAX(c1), STDDEV_SAMP(c2), COUNT(*)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end
HAVING COUNT(*) >= 3;
