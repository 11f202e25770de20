-- data: clicks
-- partitions: 2
CREATE TABLE results (ws TIMESTAMP(3), we TIMESTAMP(3), k STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT HOP_START(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND), HOP_END(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND), k, COUNT(*)
FROM (SELECT LOWER(url) AS k, ts FROM events WHERE flag IS NOT NULL) AS s
GROUP BY HOP(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND), k;
