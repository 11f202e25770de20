-- data: g00198
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), c0 BOOLEAN, a0 STRING, a1 BIGINT, a2 BOOLEAN, a3 BIGINT, a4 BOOLEAN) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, c0, LISTAGG(c1, ''), COUNT(c1) FILTER (WHERE c1 IS NOT NULL), MIN(c0), COUNT(c0), MIN(DISTINCT c0)
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))
GROUP BY window_start, window_end, c0
HAVING COUNT(*) > 1;
