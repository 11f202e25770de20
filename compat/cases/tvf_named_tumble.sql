-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, COUNT(*)
FROM TABLE(TUMBLE(DATA => TABLE events, TIMECOL => DESCRIPTOR(ts), SIZE => INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
