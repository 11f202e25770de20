-- data: money
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), narrow DECIMAL(6, 1), as_double DOUBLE, from_int DECIMAL(12, 3), from_double DECIMAL(8, 2)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, SUM(price), SUM(price), SUM(qty), AVG(CAST(qty AS DOUBLE))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
