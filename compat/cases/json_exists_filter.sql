-- data: json_payload
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), with_amount BIGINT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COUNT(*) FILTER (WHERE JSON_EXISTS(payload, '$.amount')), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
WHERE NOT JSON_EXISTS(payload, '$.user.nope')
GROUP BY window_start, window_end;
