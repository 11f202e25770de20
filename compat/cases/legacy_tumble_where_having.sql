-- data: clicks
-- partitions: 3
CREATE TABLE results (ws TIMESTAMP(3), url STRING, n BIGINT, p DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT TUMBLE_START(ts, INTERVAL '20' SECOND) AS ws, url, COUNT(*), MAX(price) * 2
FROM events
WHERE amount > 0
GROUP BY TUMBLE(ts, INTERVAL '20' SECOND), url
HAVING COUNT(*) > 1;
