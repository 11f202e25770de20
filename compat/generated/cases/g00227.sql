-- data: g00227
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 SMALLINT, a0 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, COUNT(c4)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))
WHERE c0 IS NOT NULL
GROUP BY window_start, window_end, c1;
