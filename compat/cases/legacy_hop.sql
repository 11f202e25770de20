-- data: clicks
-- partitions: 3
CREATE TABLE results (ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, lo INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT HOP_START(ts, INTERVAL '5' SECOND, INTERVAL '15' SECOND), HOP_END(ts, INTERVAL '5' SECOND, INTERVAL '15' SECOND), COUNT(*), MIN(amount)
FROM events
GROUP BY HOP(ts, INTERVAL '5' SECOND, INTERVAL '15' SECOND);
