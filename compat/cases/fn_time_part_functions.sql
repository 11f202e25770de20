-- data: clicks
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), sec BIGINT, y BIGINT, mo BIGINT, d BIGINT, h BIGINT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, SECOND(ts), YEAR(window_start), MONTH(window_end), DAYOFMONTH(window_start), HOUR(window_end), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, SECOND(ts);
