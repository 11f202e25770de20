-- data: clicks
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), clicks BIGINT, tens BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW l1 AS SELECT window_time AS t1, url, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, window_time, url;
CREATE TEMPORARY VIEW l2 AS SELECT window_time AS t2, url, SUM(c) AS c FROM TABLE(TUMBLE(TABLE l1, DESCRIPTOR(t1), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, window_time, url;
INSERT INTO results SELECT window_start, window_end, SUM(c), COUNT(*)
FROM TABLE(TUMBLE(TABLE l2, DESCRIPTOR(t2), INTERVAL '30' SECOND))
GROUP BY window_start, window_end;
