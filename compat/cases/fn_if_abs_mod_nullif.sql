-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), pos INT, a INT, m INT, nh BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, SUM(IF(amount > 0, amount, 0)), SUM(ABS(amount)), SUM(MOD(amount, 7)), COUNT(NULLIF(url, '/home'))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
