-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (id INT, f STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT id, DATE_FORMAT(d, 'yyyy/MM/dd') FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' HOUR));
