-- data: g00094
-- partitions: 2
-- mode: streaming
-- known-difference: AVG of an integer type over extreme values: the sum overflows differently
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 INT, a0 TINYINT, a1 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, AVG(c5), VAR_POP(c5)
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c0
HAVING MIN(c4) < 10;
