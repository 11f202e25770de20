-- data: clicks
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), url STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, url, COUNT(*)
FROM TABLE(SESSION(DATA => TABLE events PARTITION BY url, TIMECOL => DESCRIPTOR(ts), GAP => INTERVAL '2' SECOND))
GROUP BY window_start, window_end, url;
