-- data: types
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), a TINYINT, b SMALLINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, MAX(CAST(s16 AS TINYINT)), MIN(CAST(i32 AS SMALLINT))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
