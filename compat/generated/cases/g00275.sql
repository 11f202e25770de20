-- data: g00275
-- partitions: 1
-- mode: streaming
-- known-difference: DOUBLE SUM/AVG/VAR/STDDEV: last digits, or cancellation of small terms (another order of additions)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 STRING, a1 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, LISTAGG(c0), AVG(DISTINCT c1)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
GROUP BY window_start, window_end
HAVING COUNT(*) >= 3;
