-- data: clicks
-- partitions: 1
CREATE TABLE results (s TIMESTAMP(3), u STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE VIEW counts (s, u, n) AS
SELECT window_start, user_id, COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, user_id;
INSERT INTO results SELECT s, u, n FROM counts WHERE u IS NOT NULL;
