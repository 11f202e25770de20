-- data: g00193
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c5 STRING, c1 INT, a0 BIGINT, a1 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c5, c1, COUNT(*), COUNT(*) FILTER (WHERE c1 <> 0)
FROM TABLE(SESSION(TABLE events PARTITION BY (c5, c1), DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c5, c1;
