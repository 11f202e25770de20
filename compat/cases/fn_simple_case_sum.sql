-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), s INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, SUM(CASE url WHEN '/home' THEN 1 WHEN '/cart' THEN 2 ELSE 0 END)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
