-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), fm TIMESTAMP(3), cs TIMESTAMP(3), fd TIMESTAMP(3), cmo TIMESTAMP(3), fw TIMESTAMP(3), fq TIMESTAMP(3), cy TIMESTAMP(3), ch TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, FLOOR(MAX(ts) TO MINUTE), CEIL(MIN(ts) TO SECOND), FLOOR(window_start TO DAY),
  CEIL(window_end TO MONTH), FLOOR(window_start TO WEEK), FLOOR(window_end TO QUARTER), CEIL(window_end TO YEAR),
  CEIL(window_end TO HOUR)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
