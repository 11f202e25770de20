-- data: g00238
-- partitions: 1
-- mode: streaming
-- known-difference: DECIMAL overflow (a sum beyond 38 digits): Flink's null (SUM) or restarted sum (AVG), lowwater a value
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 STRING, a1 SMALLINT, a2 DECIMAL(38, 10), a3 DECIMAL(38, 10), a4 STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, LISTAGG(c0, '; '), STDDEV_SAMP(c2), SUM(c1), MAX(c1), LISTAGG(c0)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))
GROUP BY window_start, window_end
HAVING MAX(c1) IS NOT NULL;
