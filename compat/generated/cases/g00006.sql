-- data: g00006
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 SMALLINT, a0 INT, a1 FLOAT, a2 BIGINT, a3 INT, a4 TINYINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, FIRST_VALUE(c5), STDDEV_SAMP(c2), COUNT(*) FILTER (WHERE c5 BETWEEN -10 AND 1000), VAR_POP(c5) FILTER (WHERE c3 <> 0), SUM(DISTINCT c4)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND))
GROUP BY window_start, window_end, c0
HAVING MAX(c5) IS NOT NULL;
