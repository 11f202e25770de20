-- data: clicks
-- partitions: 2
-- mode: streaming
-- known-difference: a CUMULATE window is the merge of its slices, and Flink appends the values each slice adds to LISTAGG(DISTINCT) in the order its state backend iterates the slice's map of distinct values (a Java HashMap on the heap backend, key bytes on RocksDB), not in arrival order; lowwater keeps the order of first arrival (the same values, and the same text in TUMBLE windows, where nothing is merged)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), urls STRING, users STRING, s INT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, LISTAGG(DISTINCT url), LISTAGG(DISTINCT user_id, ';') FILTER (WHERE amount > 0), SUM(DISTINCT amount), COUNT(DISTINCT url)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
GROUP BY window_start, window_end;
