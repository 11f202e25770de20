-- data: clicks
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, urls STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, user_id, LISTAGG(DISTINCT url), COUNT(*)
FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
GROUP BY window_start, window_end, user_id;
