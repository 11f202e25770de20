-- data: json_dups
-- partitions: 1
-- mode: streaming
CREATE TABLE results (id INT, v STRING, vb STRING, q STRING, qk STRING, e BOOLEAN, whole STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT id, JSON_VALUE(doc, '$.a'), JSON_VALUE(doc, '$.a.b'), JSON_QUERY(doc, '$.a'), JSON_QUERY(doc, '$.k.a'), JSON_EXISTS(doc, '$.a'), JSON_QUERY(doc, '$')
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND));
