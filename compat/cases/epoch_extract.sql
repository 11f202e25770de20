-- data: epoch
-- partitions: 2
-- known-difference: EXTRACT before 1970 truncates toward zero in Flink (SEMANTICS.md); lowwater follows the calendar
CREATE TABLE results (window_start TIMESTAMP(3), y BIGINT, h BIGINT, mi BIGINT, s BIGINT, d BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, EXTRACT(YEAR FROM MIN(ts)), EXTRACT(HOUR FROM MIN(ts)), EXTRACT(MINUTE FROM MIN(ts)), EXTRACT(SECOND FROM MIN(ts)), EXTRACT(DAY FROM MIN(ts))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
