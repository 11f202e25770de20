-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), a STRING, b STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, SUBSTR(url, 2), SUBSTRING(url, 0, 2), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, SUBSTR(url, 2), SUBSTRING(url, 0, 2);
