-- data: money
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), bucket DECIMAL(10, 0), txt STRING, dbl DOUBLE, r1 DECIMAL(38, 1), as_int INT, f DECIMAL(10, 0), c DECIMAL(10, 0)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, FLOOR(price / 10), CAST(SUM(price) AS STRING), CAST(MAX(price) AS DOUBLE), ROUND(AVG(price), 1), CAST(MIN(price) AS INT), FLOOR(MIN(price)), CEIL(MAX(price))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
WHERE price IS NOT NULL
GROUP BY window_start, window_end, FLOOR(price / 10);
