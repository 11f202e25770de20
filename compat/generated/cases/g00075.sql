-- data: g00075
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 TINYINT, a0 DECIMAL(38, 6), a1 BIGINT, a2 DECIMAL(38, 6)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, VAR_POP(c1), COUNT(*), VAR_SAMP(c1)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND))
WHERE c2 IS NOT NULL
GROUP BY window_start, window_end, c3
HAVING MAX(c3) IS NOT NULL;
