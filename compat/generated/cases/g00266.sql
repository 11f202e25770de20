-- data: g00266
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 SMALLINT, a0 SMALLINT, a1 STRING, a2 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, VAR_POP(c1) FILTER (WHERE c1 <> 0), LISTAGG(c0, '-->'), SUM(c1) FILTER (WHERE c1 < 1)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
WHERE c0 > ''
GROUP BY window_start, window_end, c1;
