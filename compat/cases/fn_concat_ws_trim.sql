-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), k STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, CONCAT_WS('-', user_id, TRIM(BOTH '/' FROM url)), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, CONCAT_WS('-', user_id, TRIM(BOTH '/' FROM url));
