-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (id INT, c DATE, back STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT id, TO_DATE(compact, 'yyyyMMdd'), CAST(TO_DATE(compact, 'yyyyMMdd') AS STRING)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' HOUR));
