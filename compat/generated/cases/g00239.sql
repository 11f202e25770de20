-- data: g00239
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 INT, a0 BIGINT, a1 INT, a2 STRING, a3 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, COUNT(c1), VAR_SAMP(c1), LAST_VALUE(DISTINCT c0), MIN(c1)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND))
GROUP BY window_start, window_end, c1
HAVING MAX(c1) IS NOT NULL;
