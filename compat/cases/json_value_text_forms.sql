-- data: json_payload
-- partitions: 1
CREATE TABLE results (window_start TIMESTAMP(3), id BIGINT, amount STRING, flag STRING, items STRING, big STRING, missing STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, MAX(id), MAX(JSON_VALUE(payload, '$.amount')), MAX(JSON_VALUE(payload, '$.flag')),
  MAX(JSON_VALUE(payload, '$.items')), MAX(JSON_VALUE(payload, '$.big')), MAX(JSON_VALUE(payload, '$.nope'))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, id;
