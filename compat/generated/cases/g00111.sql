-- data: g00111
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 STRING, a0 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, VAR_POP(c2)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c1;
