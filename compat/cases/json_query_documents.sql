-- data: json_docs
-- partitions: 1
-- mode: streaming
CREATE TABLE results (id INT, u STRING, items STRING, whole STRING, first_item STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT id, JSON_QUERY(doc, '$.user'), JSON_QUERY(doc, '$.items'), JSON_QUERY(doc, '$'), JSON_QUERY(doc, '$.items[0]')
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND));
