-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), dt DATE, n BIGINT, first_id INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, CAST(ts AS DATE) AS dt, COUNT(*), MIN(id)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' DAY))
GROUP BY window_start, window_end, CAST(ts AS DATE);
