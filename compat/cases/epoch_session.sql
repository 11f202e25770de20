-- data: epoch
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), k STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, k, COUNT(*)
FROM TABLE(SESSION(TABLE events PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, k;
