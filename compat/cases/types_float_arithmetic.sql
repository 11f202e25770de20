-- data: types
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), s FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, SUM(f32 * 3)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE f32 < 100000
GROUP BY window_start, window_end;
