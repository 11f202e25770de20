CREATE TABLE events (
  id BIGINT,
  payload ROW<customer ROW<id STRING, tier STRING>, amount DOUBLE, items INT>,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
