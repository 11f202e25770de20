-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), url STRING, hi DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, url, MAX(price)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '30' SECOND))
GROUP BY window_start, window_end, url;
