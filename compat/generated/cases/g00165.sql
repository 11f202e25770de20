-- data: g00165
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 DECIMAL(38, 1), a1 DECIMAL(3, 1), a2 DECIMAL(38, 6), a3 DECIMAL(38, 6)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, SUM(c1), MIN(c1), VAR_SAMP(c1), VAR_POP(c1)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '6' SECOND))
WHERE c0 <> 'ü-ser'
GROUP BY window_start, window_end, c0;
