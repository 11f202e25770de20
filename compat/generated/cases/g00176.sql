-- data: g00176
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 TINYINT, a0 BIGINT, a1 BIGINT, a2 BIGINT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, COUNT(*), COUNT(c1), COUNT(c0) FILTER (WHERE c1 < 0), COUNT(c1)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c0;
