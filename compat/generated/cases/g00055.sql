-- data: g00055
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 BIGINT, a0 BIGINT, a1 BIGINT, a2 BIGINT, a3 BIGINT, a4 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, COUNT(*), COUNT(c0), VAR_POP(c0), VAR_POP(c0) FILTER (WHERE c0 IS NOT NULL), MAX(c1)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c0;
