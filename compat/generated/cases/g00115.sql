-- data: g00115
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 STRING, c3 SMALLINT, a0 BIGINT, a1 SMALLINT, a2 BIGINT, a3 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, c3, STDDEV_POP(c0), MAX(c3), COUNT(c1), VAR_SAMP(c3)
FROM TABLE(SESSION(TABLE events PARTITION BY (c2, c3), DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c2, c3;
