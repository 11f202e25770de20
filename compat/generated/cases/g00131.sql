-- data: g00131
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 SMALLINT, a0 DECIMAL(38, 1), a1 DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, SUM(c3), STDDEV_SAMP(c0)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))
WHERE c1 <> 'A'
GROUP BY window_start, window_end, c2
HAVING SUM(c0) > 0;
