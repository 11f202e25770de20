-- data: clicks
-- partitions: 3
CREATE TABLE results (ws TIMESTAMP(3), path STRING, n BIGINT, top DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE VIEW pages AS SELECT url AS path, price, ts FROM events WHERE price IS NOT NULL;
INSERT INTO results SELECT TUMBLE_START(ts, INTERVAL '15' SECOND), path, COUNT(*), MAX(price)
FROM pages
GROUP BY TUMBLE(ts, INTERVAL '15' SECOND), path;
