-- data: types
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), k STRING, s FLOAT, a FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, k, SUM(f32), AVG(f32)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE f32 < 100000
GROUP BY window_start, window_end, k;
