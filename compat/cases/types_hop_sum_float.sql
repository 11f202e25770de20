-- data: types
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), k STRING, s FLOAT, a FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, k, SUM(f32), AVG(f32)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
GROUP BY window_start, window_end, k;
