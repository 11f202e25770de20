-- data: g00073
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 BIGINT, a1 SMALLINT, a2 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, COUNT(c1), SUM(c0) FILTER (WHERE c1 IN ('c', 'c')), LAST_VALUE(c2)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end;
