-- data: clicks
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), n BIGINT, after_noon BOOLEAN) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COUNT(*), window_start >= TIMESTAMP '2025-09-14 12:00:20'
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
WHERE ts >= TIMESTAMP '2025-09-14 12:00:05' AND ts < TIMESTAMP '2025-09-14 12:00:41.500'
GROUP BY window_start, window_end;
