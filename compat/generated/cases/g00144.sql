-- data: g00144
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), a0 INT, a1 DECIMAL(38, 10), a2 SMALLINT, a3 SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, STDDEV_SAMP(c3), LAST_VALUE(c4), VAR_SAMP(c2), STDDEV_SAMP(c2)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND))
WHERE c1 <> ''
GROUP BY window_start, window_end;
