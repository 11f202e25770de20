-- data: g00194
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DECIMAL(38, 6), a1 SMALLINT, a2 INT, a3 BIGINT, a4 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, AVG(c4) FILTER (WHERE c3 > 3.3), STDDEV_SAMP(c0), MAX(c2) FILTER (WHERE c2 > 100), COUNT(*), STDDEV_SAMP(c2)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end;
