-- data: g00032
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 INT, a1 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, VAR_POP(c1), COUNT(c0)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '8' SECOND))
WHERE c0 = 'zz'
GROUP BY window_start, window_end, c0;
