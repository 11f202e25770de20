-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), pos BIGINT, home INT, fa DOUBLE, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COUNT(*) FILTER (WHERE amount > 0), SUM(amount) FILTER (WHERE url = '/home'), AVG(price) FILTER (WHERE flag), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
