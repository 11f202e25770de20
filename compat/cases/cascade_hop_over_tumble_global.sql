-- data: clicks
-- partitions: 3
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), wt TIMESTAMP(3), nb BIGINT, total BIGINT, amount_sum INT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TEMPORARY VIEW per_sec AS SELECT window_time AS t, COUNT(*) AS n, SUM(amount) AS a FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end, window_time;
INSERT INTO results SELECT window_start, window_end, window_time, COUNT(*), SUM(n), SUM(a)
FROM TABLE(HOP(TABLE per_sec, DESCRIPTOR(t), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end, window_time;
