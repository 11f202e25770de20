-- data: clicks
-- partitions: 2
-- mode: streaming
-- double-tolerance: 1e-12 (Flink also splits a slice's records into bundles, merged into the slice, at the moments its watermark passes a slice's end while later records wait; those moments depend on processing time, and lowwater does not follow them: a double VAR or SUM may differ in its last bits)
CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, vp INT, vs INT, sp INT, ss INT, dvp DOUBLE, dss DOUBLE, s DOUBLE, a DOUBLE, urls STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, user_id, VAR_POP(amount), VAR_SAMP(amount), STDDEV_POP(amount), STDDEV_SAMP(amount), VAR_POP(price), STDDEV_SAMP(price), SUM(price), AVG(price), LISTAGG(url)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '30' SECOND))
GROUP BY window_start, window_end, user_id;
