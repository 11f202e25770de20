-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (id INT, month_only DATE, year_only DATE, padded DATE, spaced DATE, parsed DATE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT id, CAST('2025-09' AS DATE), CAST('2025' AS DATE), CAST('02025-09-14' AS DATE), CAST('2025-09-14 junk' AS DATE), TO_DATE(s)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' HOUR));
