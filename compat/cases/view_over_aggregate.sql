-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), url STRING, clicks BIGINT, amount INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW per_url AS
SELECT window_start, window_end, url, COUNT(*) AS clicks, SUM(amount) AS amount
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, url;
INSERT INTO results SELECT window_start, window_end, url, clicks, amount FROM per_url WHERE amount > 0 OR clicks > 2;
