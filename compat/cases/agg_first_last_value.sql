-- data: clicks
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), url STRING, fu STRING, lu STRING, fp DOUBLE, la INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, url, FIRST_VALUE(user_id), LAST_VALUE(user_id), FIRST_VALUE(price), LAST_VALUE(amount)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, url;
