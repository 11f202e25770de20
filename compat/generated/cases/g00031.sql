-- data: g00031
-- partitions: 4
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 SMALLINT, a1 SMALLINT, a2 BIGINT, a3 SMALLINT, a4 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, SUM(c1), STDDEV_SAMP(c1), COUNT(c0), STDDEV_SAMP(c1), SUM(c1)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '8' SECOND))
WHERE c1 IS NOT NULL
GROUP BY window_start, window_end;
