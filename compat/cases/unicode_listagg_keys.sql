-- data: clicks
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), url STRING, users STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, url, LISTAGG(COALESCE(user_id, '∅'), '·'), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
WHERE url IN ('/ß', '/home')
GROUP BY window_start, window_end, url;
