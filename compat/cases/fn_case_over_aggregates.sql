-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), load STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, CASE WHEN COUNT(*) > 8 THEN 'busy' ELSE 'quiet' END, COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
