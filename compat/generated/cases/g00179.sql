-- data: g00179
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 SMALLINT, a0 BIGINT, a1 SMALLINT, a2 SMALLINT, a3 SMALLINT, a4 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, COUNT(*), AVG(c0) FILTER (WHERE c2 <> 0), VAR_SAMP(c0) FILTER (WHERE c2 <> 0), AVG(c1), COUNT(c2) FILTER (WHERE c2 < 1)
FROM TABLE(SESSION(TABLE events PARTITION BY c0, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c0 <> 0
GROUP BY window_start, window_end, c0;
