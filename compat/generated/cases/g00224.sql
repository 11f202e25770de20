-- data: g00224
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 STRING, a0 BIGINT, a1 BIGINT, a2 BIGINT, a3 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, STDDEV_SAMP(c0), STDDEV_SAMP(c0) FILTER (WHERE c0 < 0), STDDEV_SAMP(c0), LISTAGG(c1)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c1;
