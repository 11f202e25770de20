-- data: g00047
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c3 STRING, a0 SMALLINT, a1 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c3, VAR_SAMP(c0), VAR_POP(c0)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
GROUP BY window_start, window_end, c3
HAVING MIN(c1) < 10;
