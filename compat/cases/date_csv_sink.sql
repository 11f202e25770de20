-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (id INT, d DATE, dt DATE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'csv');
INSERT INTO results SELECT id, d, CAST(ts AS DATE) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' HOUR)) WHERE d IS NOT NULL;
