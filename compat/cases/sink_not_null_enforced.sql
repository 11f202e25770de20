-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), lo INT NOT NULL, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, MIN(amount) FILTER (WHERE amount > 50), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
