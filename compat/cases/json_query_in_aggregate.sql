-- data: json_docs
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), users STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, LISTAGG(JSON_QUERY(doc, '$.user'), ' | '), COUNT(JSON_QUERY(doc, '$.items'))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
WHERE JSON_QUERY(doc, '$.user') IS NOT NULL
GROUP BY window_start, window_end;
