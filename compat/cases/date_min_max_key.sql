-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), d DATE, lo DATE, hi DATE, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, d, MIN(CAST(ts AS DATE)), MAX(d), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '6' HOUR))
GROUP BY window_start, window_end, d;
