-- data: g00233
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 BIGINT, a0 BIGINT, a1 BIGINT, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, AVG(c1) FILTER (WHERE c2 <> 'ü-ser'), AVG(c1), COUNT(c0)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND))
GROUP BY window_start, window_end, c1;
