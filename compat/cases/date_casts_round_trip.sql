-- data: dates
-- partitions: 1
-- mode: streaming
CREATE TABLE results (id INT, ltz TIMESTAMP_LTZ(3), round_trip DATE, txt_round_trip DATE) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT id, CAST(d AS TIMESTAMP_LTZ(3)), CAST(CAST(d AS TIMESTAMP(3)) AS DATE), CAST(CAST(d AS STRING) AS DATE)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' HOUR));
