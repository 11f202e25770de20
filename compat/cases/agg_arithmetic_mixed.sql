-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), a BIGINT, spread INT, p DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COUNT(*) * 2 + 1, MAX(amount) - MIN(amount), MAX(price) * 2
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
