-- data: clicks
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), mi BIGINT, q BIGINT, w BIGINT, dow BIGINT, doy BIGINT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, MINUTE(ts), QUARTER(window_start), WEEK(window_start), DAYOFWEEK(window_end), DAYOFYEAR(window_end), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
GROUP BY window_start, window_end, MINUTE(ts);
