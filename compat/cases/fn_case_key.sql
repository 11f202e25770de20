-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), size STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, CASE WHEN amount > 10 THEN 'big' WHEN amount > 0 THEN 'small' ELSE 'other' END, COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, CASE WHEN amount > 10 THEN 'big' WHEN amount > 0 THEN 'small' ELSE 'other' END;
