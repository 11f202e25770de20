-- data: visits
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, page STRING, score INT, r BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_start, user_id, page, score, r FROM (
  SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY score DESC) AS r
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE r <= 2;
