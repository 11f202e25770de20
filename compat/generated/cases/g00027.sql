-- data: g00027
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, c2 BIGINT, a0 SMALLINT, a1 BIGINT, a2 SMALLINT, a3 STRING, a4 FLOAT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, c2, SUM(c4), COUNT(*), MAX(DISTINCT c4), LISTAGG(c0, ''), VAR_POP(c1)
FROM TABLE(SESSION(TABLE events PARTITION BY (c0, c2), DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c0, c2;
