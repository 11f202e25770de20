-- data: g00076
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 BIGINT, c0 STRING, a0 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, c0, COUNT(*)
FROM TABLE(SESSION(TABLE events PARTITION BY (c2, c0), DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c2, c0;
