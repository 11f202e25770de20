-- data: clicks
-- partitions: 2
CREATE TABLE results (window_start TIMESTAMP(3), section STRING, tail STRING, whole STRING, n BIGINT, carts BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results SELECT window_start, REGEXP_EXTRACT(url, '^/([a-z]+)', 1), REGEXP_REPLACE(MAX(url), '/(\w)(\w*)', '$1-$2'),
  REGEXP_EXTRACT(MIN(url), 'o(.)'), COUNT(*), COUNT(*) FILTER (WHERE REGEXP(url, 'ar'))
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, REGEXP_EXTRACT(url, '^/([a-z]+)', 1);
