-- data: g00124
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 TINYINT, a1 BIGINT, a2 BIGINT, a3 INT, a4 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, AVG(c3), COUNT(c3), COUNT(c0), STDDEV_SAMP(c2), SUM(c3)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND))
WHERE c0 > 'b'
GROUP BY window_start, window_end;
