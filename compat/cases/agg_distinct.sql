-- data: clicks
-- partitions: 3
-- mode: streaming
-- double-tolerance: 1e-12 (Flink adds SUM(DISTINCT)'s doubles in the order its state iterates them, not in arrival order)
CREATE TABLE results (window_start TIMESTAMP(3), s INT, a INT, lo STRING, d BIGINT, sd DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, SUM(DISTINCT amount), AVG(DISTINCT amount), MIN(DISTINCT url), COUNT(DISTINCT user_id), SUM(DISTINCT price)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
