-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), r2 DOUBLE, r0 DOUBLE, rneg INT, ri INT, fl DOUBLE, ce DOUBLE, fi INT, bucket INT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, ROUND(AVG(price), 2), ROUND(SUM(price)), ROUND(SUM(amount) * 7, -1), ROUND(MIN(amount)),
  FLOOR(AVG(price) * 10), CEIL(MAX(price) * 3), FLOOR(MAX(amount)), FLOOR(amount / 2), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, FLOOR(amount / 2);
