-- data: clicks
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), products BIGINT, other BIGINT, under BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COUNT(*) FILTER (WHERE url LIKE '/p/_'), COUNT(*) FILTER (WHERE url NOT LIKE '/%a%'), COUNT(*) FILTER (WHERE CONCAT(url, '_x') LIKE '%!_x' ESCAPE '!')
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
