-- data: g00281
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 STRING, a0 STRING, a1 BIGINT, a2 FLOAT, a3 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, MIN(DISTINCT c0), COUNT(DISTINCT c1), VAR_POP(c1), LISTAGG(c0, '-->')
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, c0;
