-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (id INT, d DATE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT id, CAST(id AS DATE) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' HOUR));
