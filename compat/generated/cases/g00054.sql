-- data: g00054
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 BIGINT, a1 FLOAT, a2 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, COUNT(c0) FILTER (WHERE c1 <> 'a'), MAX(c2), COUNT(*)
FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end
HAVING MAX(c2) IS NOT NULL;
