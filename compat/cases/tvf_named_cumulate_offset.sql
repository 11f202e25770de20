-- data: clicks
-- partitions: 1
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, COUNT(*)
FROM TABLE(CUMULATE(DATA => TABLE events, TIMECOL => DESCRIPTOR(ts), STEP => INTERVAL '5' SECOND, SIZE => INTERVAL '15' SECOND, `OFFSET` => INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
