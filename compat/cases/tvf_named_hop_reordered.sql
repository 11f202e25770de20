-- data: clicks
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, s INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, user_id, SUM(amount)
FROM TABLE(HOP(SIZE => INTERVAL '10' SECOND, DATA => TABLE events, SLIDE => INTERVAL '5' SECOND, TIMECOL => DESCRIPTOR(ts)))
GROUP BY window_start, window_end, user_id;
