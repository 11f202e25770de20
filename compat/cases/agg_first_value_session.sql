-- data: clicks
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, first_url STRING, last_url STRING, path STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, user_id, FIRST_VALUE(url), LAST_VALUE(url), LISTAGG(url, '>')
FROM TABLE(SESSION(TABLE events PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, user_id;
