-- data: g00122
-- partitions: 2
-- mode: streaming
-- known-difference: SUM/AVG of FLOAT: last bits (known)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 SMALLINT, a1 BIGINT, a2 FLOAT, a3 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, VAR_POP(DISTINCT c3), STDDEV_POP(c5), AVG(c2), AVG(c2)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
