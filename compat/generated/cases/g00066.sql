-- data: g00066
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 FLOAT, a1 DECIMAL(38, 6), a2 DECIMAL(38, 6), a3 BIGINT, a4 DECIMAL(38, 6)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, AVG(c0), VAR_SAMP(c1), VAR_POP(DISTINCT c1) FILTER (WHERE c1 < 100), COUNT(c0), VAR_SAMP(c1)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
WHERE c1 > 3.3
GROUP BY window_start, window_end
HAVING MIN(c1) < 10;
