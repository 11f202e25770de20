-- data: g00254
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 DOUBLE, a1 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, MAX(c3), COUNT(*)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
WHERE c3 <> 0
GROUP BY window_start, window_end;
