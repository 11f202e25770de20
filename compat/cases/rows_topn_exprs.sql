-- data: visits
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_end TIMESTAMP(3), who STRING, spent DECIMAL(8, 2), pos BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_end, UPPER(COALESCE(user_id, 'none')) AS who, cost * 2 AS spent, pos FROM (
  SELECT user_id, cost, window_start, window_end, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY cost DESC NULLS LAST) AS pos
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE pos <= 2;
