-- data: clicks
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), urls STRING, users STRING, last_url STRING, first_user STRING, n BIGINT, big STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, LISTAGG(DISTINCT url), LISTAGG(DISTINCT user_id, ';'), LAST_VALUE(DISTINCT url), FIRST_VALUE(DISTINCT user_id), COUNT(DISTINCT url), LISTAGG(DISTINCT url) FILTER (WHERE amount > 0)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
