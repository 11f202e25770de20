-- data: g00174
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, VAR_POP(c1)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND))
WHERE c0 = 'ü-ser'
GROUP BY window_start, window_end
HAVING MIN(c1) < 10;
