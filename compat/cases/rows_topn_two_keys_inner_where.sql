-- data: visits
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_end TIMESTAMP(3), user_id STRING, page STRING, cost DECIMAL(6, 2), pos BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_end, user_id, page, cost, pos FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id, score > 4 ORDER BY cost DESC NULLS FIRST, page) AS pos
  FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '30' SECOND))
  WHERE page <> '/1'
) WHERE pos <= 2;
