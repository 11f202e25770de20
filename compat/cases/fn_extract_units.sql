-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), y BIGINT, q BIGINT, mo BIGINT, w BIGINT, doy BIGINT, dow BIGINT, d BIGINT, h BIGINT, mi BIGINT, s BIGINT, ms BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, EXTRACT(YEAR FROM MAX(ts)), EXTRACT(QUARTER FROM MAX(ts)), EXTRACT(MONTH FROM MAX(ts)),
  EXTRACT(WEEK FROM MAX(ts)), EXTRACT(DOY FROM MAX(ts)), EXTRACT(DOW FROM MAX(ts)), EXTRACT(DAY FROM MAX(ts)),
  EXTRACT(HOUR FROM MAX(ts)), EXTRACT(MINUTE FROM MAX(ts)), EXTRACT(SECOND FROM MAX(ts)), EXTRACT(MILLISECOND FROM MAX(ts))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
