-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), d DATE, id INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, d, id FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, d ORDER BY ts DESC) AS rn
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' DAY))
) WHERE rn = 1;
