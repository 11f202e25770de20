-- data: g00159
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 BIGINT, c0 INT, a0 INT, a1 INT, a2 BIGINT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, c0, VAR_POP(c0) FILTER (WHERE c3 <> 'c'), STDDEV_POP(c0), STDDEV_POP(c2), VAR_POP(c4)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND))
GROUP BY window_start, window_end, c2, c0;
