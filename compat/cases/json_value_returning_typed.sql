-- data: json_payload
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), tier STRING, total DOUBLE, first_items BIGINT, flagged BIGINT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, JSON_VALUE(payload, '$.user.tier'),
  SUM(JSON_VALUE(payload, '$.amount' RETURNING DOUBLE)),
  SUM(JSON_VALUE(payload, '$.items[0]' RETURNING INT)),
  COUNT(*) FILTER (WHERE JSON_VALUE(payload, '$.flag' RETURNING BOOLEAN)),
  COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND))
WHERE MOD(id, 13) <> 0 AND MOD(id, 17) <> 0
GROUP BY window_start, window_end, JSON_VALUE(payload, '$.user.tier');
