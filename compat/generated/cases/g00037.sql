-- data: g00037
-- partitions: 1
-- mode: streaming
-- known-difference: LISTAGG with a separator in HOP/CUMULATE: Flink joins slices with ','
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 BOOLEAN, c2 STRING, a0 STRING, a1 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, c2, LISTAGG(c5, '-->') FILTER (WHERE c5 = 'ü-ser'), SUM(c0) FILTER (WHERE c1)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '8' SECOND))
GROUP BY window_start, window_end, c1, c2;
