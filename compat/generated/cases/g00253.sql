-- data: g00253
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c5 SMALLINT, a0 STRING, a1 DECIMAL(38, 4), a2 DECIMAL(38, 4), a3 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c5, LISTAGG(DISTINCT c0, '') FILTER (WHERE c2 BETWEEN -10 AND 1000), SUM(c1), SUM(DISTINCT c1) FILTER (WHERE c4 BETWEEN -10 AND 1000), COUNT(c0)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))
GROUP BY window_start, window_end, c5;
