-- data: clicks
-- partitions: 2
-- mode: streaming
-- double-tolerance: 1e-12 (a HOP window merges its slices' distinct values in the order Flink's state backend iterates them; lowwater adds them in the order they first arrived, as Flink does in a TUMBLE window)
CREATE TABLE results (window_start TIMESTAMP(3), n BIGINT, a INT, ap DOUBLE, lo STRING, nf BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COUNT(DISTINCT url), AVG(DISTINCT amount), AVG(DISTINCT price), MIN(DISTINCT url), COUNT(DISTINCT user_id) FILTER (WHERE amount > 0)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
GROUP BY window_start, window_end;
