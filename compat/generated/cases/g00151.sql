-- data: g00151
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 FLOAT, a1 BIGINT, a2 BIGINT, a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, AVG(c2), COUNT(c2), COUNT(*) FILTER (WHERE c3 >= 0), COUNT(c2) FILTER (WHERE c4 IS NULL)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND))
GROUP BY window_start, window_end;
