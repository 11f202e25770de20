-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), back TIMESTAMP(3), from_epoch TIMESTAMP_LTZ(3), from_millis TIMESTAMP_LTZ(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, TO_TIMESTAMP(DATE_FORMAT(MAX(ts), 'yyyy-MM-dd HH:mm:ss')), MAX(TO_TIMESTAMP_LTZ(amount, 0)), MIN(TO_TIMESTAMP_LTZ(amount, 3))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
