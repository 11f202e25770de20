-- data: epoch
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), k STRING, sd DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, k, STDDEV(CAST(v AS DOUBLE))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k
HAVING VARIANCE(CAST(v AS DOUBLE)) > 1;
