-- data: g00011
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c4 BOOLEAN, a0 BIGINT, a1 STRING, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c4, COUNT(*) FILTER (WHERE c1 IN ('a,b', '')), LISTAGG(c2), COUNT(c1) FILTER (WHERE NOT c4)
FROM TABLE(SESSION(TABLE events PARTITION BY c4, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, c4;
