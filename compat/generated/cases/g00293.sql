-- data: g00293
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, COUNT(c2)
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c0;
