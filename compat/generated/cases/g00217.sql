-- data: g00217
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, c1 INT, a0 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, c1, VAR_SAMP(c2)
FROM TABLE(SESSION(TABLE events PARTITION BY (c0, c1), DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c2 IS NOT NULL
GROUP BY window_start, window_end, c0, c1;
