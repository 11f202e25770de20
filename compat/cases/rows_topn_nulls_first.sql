-- data: visits
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), page STRING, score INT, pos BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_start, page, score, pos FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY score NULLS FIRST, page DESC) AS pos
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE pos <= 4;
