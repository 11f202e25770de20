-- data: json_docs
-- partitions: 1
-- mode: streaming
CREATE TABLE results (id INT, scalar_user STRING, missing STRING, nested STRING, elem STRING, second_item STRING, uid STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT id, JSON_QUERY(doc, '$.n'), JSON_QUERY(doc, '$.nope'), JSON_QUERY(doc, '$.user.nested.deep'),
  JSON_QUERY(doc, '$[1]'), JSON_QUERY(doc, 'lax $.items[1]'), JSON_VALUE(JSON_QUERY(doc, '$.user'), '$.id')
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND));
