-- data: epoch
-- partitions: 2
-- known-difference: Flink's CEIL(ts TO WEEK|MONTH|QUARTER|YEAR) ignores the time of day, so a time after midnight on the first day of a period comes out earlier than itself; lowwater gives the next period's start
CREATE TABLE results (window_start TIMESTAMP(3), cw TIMESTAMP(3), cmo TIMESTAMP(3), cy TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, CEIL(MAX(ts) TO WEEK), CEIL(MAX(ts) TO MONTH), CEIL(MAX(ts) TO YEAR)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
