-- data: clicks
-- partitions: 3
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), url STRING, cnt BIGINT, rownum BIGINT) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_start, window_end, url, cnt, rownum FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY cnt DESC, url) AS rownum
  FROM (
    SELECT window_start, window_end, url, COUNT(*) AS cnt
    FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
    GROUP BY window_start, window_end, url
  )
) WHERE rownum <= 2;
