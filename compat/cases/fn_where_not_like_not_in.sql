-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE url NOT LIKE '%a%' AND amount NOT IN (5, 7) AND price NOT BETWEEN 0 AND 1
GROUP BY window_start, window_end;
