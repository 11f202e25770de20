-- data: clicks
-- partitions: 2
-- mode: streaming
-- double-tolerance: 1e-12 (Flink also splits a slice's records into bundles, merged into the slice, at the moments its watermark passes a slice's end while later records wait; those moments depend on processing time, and lowwater does not follow them: a double VAR or SUM may differ in its last bits)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), vp INT, ss INT, dvp DOUBLE, s DOUBLE, a DOUBLE, urls STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, VAR_POP(amount), STDDEV_SAMP(amount), VAR_POP(price), SUM(price), AVG(price), LISTAGG(url, ';')
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND))
GROUP BY window_start, window_end;
