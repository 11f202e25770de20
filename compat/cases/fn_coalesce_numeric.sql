-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), s DOUBLE, t INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, SUM(COALESCE(price, 0)), SUM(COALESCE(amount, -1))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
