-- data: g00197
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c4 BIGINT, a0 TINYINT, a1 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c4, STDDEV_POP(c3), STDDEV_SAMP(c2) FILTER (WHERE c4 >= 5)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
WHERE c1 <> 0
GROUP BY window_start, window_end, c4
HAVING MAX(c3) IS NOT NULL;
