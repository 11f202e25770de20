-- data: visits
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, page STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_start, user_id, page FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id ORDER BY window_time DESC) AS rn
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rn = 1;
