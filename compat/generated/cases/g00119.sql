-- data: g00119
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, MAX(c2)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND))
WHERE c1 = 'ü-ser'
GROUP BY window_start, window_end;
