-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (id INT, fm DATE, fy STRING, cm DATE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT id, FLOOR(d TO MONTH), CAST(FLOOR(d TO YEAR) AS STRING), CEIL(d TO MONTH)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' HOUR)) WHERE d > DATE '1000-01-01';
