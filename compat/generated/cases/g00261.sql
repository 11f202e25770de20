-- data: g00261
-- partitions: 1
-- mode: streaming
-- known-difference: AVG of an integer type over extreme values: the sum overflows differently && LISTAGG(DISTINCT) order: Flink lists the values in its distinct map's (hash) order, lowwater in first-seen order
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 STRING, a1 TINYINT, a2 TINYINT, a3 BIGINT, a4 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, LISTAGG(DISTINCT c3, '; '), VAR_POP(DISTINCT c2), MIN(c2) FILTER (WHERE c1 BETWEEN -10 AND 1000), COUNT(c1), AVG(c2)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end;
