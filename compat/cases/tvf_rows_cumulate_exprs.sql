-- data: clicks
-- partitions: 3
CREATE TABLE results (who STRING, twice INT, we STRING, wt TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT UPPER(user_id), amount * 2, CAST(window_end AS STRING), window_time
FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
WHERE amount > 0;
