-- data: g00103
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c2 BOOLEAN, c0 STRING, a0 SMALLINT, a1 DECIMAL(38, 4), a2 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c2, c0, AVG(DISTINCT c3), SUM(c4), AVG(DISTINCT c3)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c2, c0;
