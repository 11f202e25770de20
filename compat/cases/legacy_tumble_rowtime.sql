-- data: clicks
-- partitions: 3
CREATE TABLE results (rt TIMESTAMP(3), n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT TUMBLE_ROWTIME(ts, INTERVAL '10' SECOND), COUNT(*)
FROM events
GROUP BY TUMBLE(ts, INTERVAL '10' SECOND);
