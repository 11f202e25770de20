-- data: types
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), k STRING, m INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, k, MAX(i32 * 3000000)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
