-- data: g00020
-- partitions: 1
-- mode: streaming
-- known-difference: DOUBLE SUM/AVG/VAR/STDDEV: last digits, or cancellation of small terms (another order of additions)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 SMALLINT, a1 STRING, a2 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, VAR_POP(c1), LISTAGG(c0, ''), VAR_SAMP(c2)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c1 <> 0
GROUP BY window_start, window_end;
