-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), who STRING, n BIGINT, a2 INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW cleaned AS
SELECT UPPER(COALESCE(user_id, 'anon')) AS who, amount * 2 AS doubled, ts
FROM events
WHERE url <> '/home';
INSERT INTO results SELECT window_start, who, COUNT(*), SUM(doubled)
FROM TABLE(TUMBLE(TABLE cleaned, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, who;
