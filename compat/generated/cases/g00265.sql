-- data: g00265
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 STRING, a0 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, COUNT(*)
FROM TABLE(SESSION(TABLE events PARTITION BY c2, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c2;
