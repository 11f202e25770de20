-- data: visits
-- partitions: 1
-- mode: streaming
CREATE TABLE results (user_id STRING, page STRING, score INT, cost DECIMAL(6, 2), ts TIMESTAMP(3), window_start TIMESTAMP(3), window_end TIMESTAMP(3), window_time TIMESTAMP(3), rn BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id ORDER BY ts DESC) AS rn
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rn <= 1;
