-- data: g00287
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DECIMAL(18, 4)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, LAST_VALUE(c5)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c5 BETWEEN -10 AND 1000
GROUP BY window_start, window_end;
