-- data: clicks
-- partitions: 3
CREATE TABLE results (slot STRING, a STRING, b STRING, c STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT DATE_FORMAT(ts, 'HH:mm:ss'), DATE_FORMAT(window_start, 'yyyy-MM-dd HH:mm:ss'), DATE_FORMAT(MAX(ts), 'yy/M/d H:m:s.SSS'),
  DATE_FORMAT(window_end, 'EEE, d MMM yyyy hh:mm a ''x'''), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, DATE_FORMAT(ts, 'HH:mm:ss');
