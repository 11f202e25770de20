-- data: epoch
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), k STRING, lo INT, hi INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, k, MIN(v), MAX(v)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
GROUP BY window_start, window_end, k;
