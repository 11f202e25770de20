-- data: clicks
-- partitions: 3
CREATE TABLE results (s STRING, e STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT CAST(window_start AS STRING), CAST(window_end AS STRING), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
