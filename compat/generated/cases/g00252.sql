-- data: g00252
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c4 BIGINT, a0 TINYINT, a1 DOUBLE, a2 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c4, MIN(DISTINCT c0), MIN(c5), VAR_SAMP(c0)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND))
WHERE c3 IS NOT NULL
GROUP BY window_start, window_end, c4;
