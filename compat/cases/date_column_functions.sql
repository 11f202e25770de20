-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (id INT, d DATE, txt STRING, midnight TIMESTAMP(3), y BIGINT, m BIGINT, dom BIGINT, doy BIGINT, q BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT id, d, CAST(d AS STRING), CAST(d AS TIMESTAMP(3)), YEAR(d), MONTH(d), DAYOFMONTH(d), DAYOFYEAR(d), QUARTER(d)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' HOUR));
