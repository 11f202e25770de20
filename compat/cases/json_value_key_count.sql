-- data: json_payload
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), uid STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, JSON_VALUE(payload, '$.user.id') AS uid, COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
GROUP BY window_start, window_end, JSON_VALUE(payload, '$.user.id');
