-- data: types
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), k STRING, a DECIMAL(38, 1), b DECIMAL(38, 2), c DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, k, SUM(t8 * 1.5), SUM(s16 / 4.00), SUM(f32 * 2.5)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k;
