-- data: g00175
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c4 BIGINT, c3 STRING, a0 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c4, c3, STDDEV_POP(c1) FILTER (WHERE c1 <> 0)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
WHERE c0 BETWEEN -10 AND 1000
GROUP BY window_start, window_end, c4, c3;
