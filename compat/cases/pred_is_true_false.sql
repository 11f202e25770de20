-- data: clicks
-- partitions: 2
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), t BIGINT, nt BIGINT, f BIGINT, nf BIGINT, v DOUBLE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COUNT(*) FILTER (WHERE flag IS TRUE), COUNT(*) FILTER (WHERE flag IS NOT TRUE), COUNT(*) FILTER (WHERE flag IS FALSE), COUNT(*) FILTER (WHERE flag IS NOT FALSE), VAR_POP(DISTINCT amount)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
WHERE (amount > 0) IS NOT FALSE
GROUP BY window_start, window_end;
