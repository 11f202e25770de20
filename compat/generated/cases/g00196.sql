-- data: g00196
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c4 SMALLINT, a0 BIGINT, a1 BIGINT, a2 BIGINT, a3 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c4, COUNT(*), COUNT(c4), COUNT(c4), STDDEV_POP(c5) FILTER (WHERE c4 < -1)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c4;
