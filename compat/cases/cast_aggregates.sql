-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), n INT, a BIGINT, s DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, CAST(COUNT(*) AS INT), CAST(AVG(price) AS BIGINT), CAST(SUM(amount) AS DOUBLE)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
