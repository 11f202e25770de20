-- data: g00221
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 SMALLINT, a1 STRING, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, STDDEV_SAMP(DISTINCT c1) FILTER (WHERE c0 > 1), LISTAGG(c2, '|'), COUNT(*)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end
HAVING SUM(c0) > 0;
