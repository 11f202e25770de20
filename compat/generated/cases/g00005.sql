-- data: g00005
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 FLOAT, a1 TINYINT, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, VAR_POP(c0), SUM(c3), COUNT(*)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))
WHERE c3 < -1
GROUP BY window_start, window_end;
