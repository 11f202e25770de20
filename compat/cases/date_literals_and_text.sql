-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (id INT, d DATE, parsed DATE, tried DATE, lit DATE, after_lit BOOLEAN, eq_text BOOLEAN) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT id, d, TO_DATE(s), TRY_CAST(s AS DATE), DATE '2025-09-14', d >= DATE '2025-09-14', d = '2025-09-14'
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' HOUR));
