-- data: g00090
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 SMALLINT, a1 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, AVG(DISTINCT c0) FILTER (WHERE c0 > 1), SUM(c0)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end;
