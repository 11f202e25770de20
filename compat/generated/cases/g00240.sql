-- data: g00240
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 INT, a1 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, STDDEV_POP(c3) FILTER (WHERE c2 BETWEEN -10 AND 1000), COUNT(c4)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND))
GROUP BY window_start, window_end;
