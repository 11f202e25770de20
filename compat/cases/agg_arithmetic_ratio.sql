-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), r INT, d DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, SUM(amount) / COUNT(amount), SUM(price) / COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end
HAVING COUNT(amount) > 0;
