-- data: g00226
-- partitions: 4
-- mode: streaming
-- known-difference: STDDEV/VAR of an integer type in HOP: off by one or in the last digits (known)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 BOOLEAN, a0 TINYINT, a1 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, VAR_SAMP(c0), VAR_POP(c0)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c3
HAVING COUNT(*) >= 3;
