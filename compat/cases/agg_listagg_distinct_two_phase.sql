-- data: clicks
-- partitions: 1
-- mode: streaming
-- known-difference: without FIRST_VALUE or LAST_VALUE in the query, Flink aggregates a TUMBLE window in two phases, and LISTAGG(DISTINCT) then lists each bundle's new values in the order of a Java HashMap of them (their hash), not in arrival order; which records form a bundle depends on processing time. lowwater lists them in the order they first arrived, as Flink's one-phase aggregation does (with FIRST_VALUE or LAST_VALUE in the query, or table.optimizer.agg-phase-strategy ONE_PHASE): the same values
CREATE TABLE results (window_start TIMESTAMP(3), urls STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, LISTAGG(DISTINCT url), COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
