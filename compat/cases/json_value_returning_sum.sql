-- data: json_payload
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), tier STRING, total DOUBLE, items BIGINT, big BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, JSON_VALUE(payload, '$.user.tier'),
  SUM(JSON_VALUE(payload, '$.amount' RETURNING DOUBLE)),
  SUM(JSON_VALUE(payload, '$.items[0]' RETURNING INT)),
  MAX(JSON_VALUE(payload, '$.big' RETURNING BIGINT))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
GROUP BY window_start, window_end, JSON_VALUE(payload, '$.user.tier');
