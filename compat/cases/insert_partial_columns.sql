-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), note STRING, n BIGINT, extra INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results (n, window_start) SELECT COUNT(*), window_start
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
