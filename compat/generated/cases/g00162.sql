-- data: g00162
-- partitions: 3
-- mode: streaming
-- known-difference: lowwater accepts what Flink rejects: the SESSION aggregate becomes a GroupAggregate (update changes the sink refuses)
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c1 STRING, a0 BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c1, MAX(c0)
FROM TABLE(SESSION(TABLE events PARTITION BY c1, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE c1 = 'ü-ser'
GROUP BY window_start, window_end, c1;
