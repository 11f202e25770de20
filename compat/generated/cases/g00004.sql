-- data: g00004
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 SMALLINT, c0 STRING, a0 STRING, a1 SMALLINT, a2 BIGINT, a3 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, c0, LISTAGG(DISTINCT c0, ''), VAR_POP(c1), COUNT(c1), LISTAGG(c0, '-->')
FROM TABLE(SESSION(TABLE events PARTITION BY (c1, c0), DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c1, c0;
