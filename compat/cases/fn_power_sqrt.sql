-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), sq DOUBLE, root DOUBLE, cubed DOUBLE, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, SUM(POWER(amount, 2)), SQRT(CAST(COUNT(*) AS DOUBLE)), POWER(CAST(MAX(amount) AS DOUBLE), 3), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
