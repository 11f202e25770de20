-- data: clicks
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), users STRING, urls STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, LISTAGG(user_id), LISTAGG(url, ' | ')
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
