-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (window_start TIMESTAMP(3), n BIGINT, days STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, COUNT(*), LISTAGG(CAST(d AS STRING))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '12' HOUR))
WHERE d BETWEEN DATE '1970-01-01' AND DATE '2025-09-14' AND CAST(CAST(ts AS TIMESTAMP_LTZ(3)) AS DATE) >= DATE '2025-09-13'
GROUP BY window_start, window_end;
