-- data: epoch
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), fm TIMESTAMP(3), cs TIMESTAMP(3), fd TIMESTAMP(3), txt STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, FLOOR(MIN(ts) TO MINUTE), CEIL(MIN(ts) TO SECOND), FLOOR(window_start TO DAY), DATE_FORMAT(MIN(ts), 'yyyy-MM-dd HH:mm:ss.SSS')
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
