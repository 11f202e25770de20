-- data: g00065
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 FLOAT, a1 BIGINT, a2 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, VAR_SAMP(DISTINCT c1), SUM(DISTINCT c3), MAX(c4) FILTER (WHERE c3 <> 0)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND))
WHERE c2 > 'c'
GROUP BY window_start, window_end;
