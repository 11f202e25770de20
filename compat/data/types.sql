CREATE TABLE events (
  k STRING,
  t8 TINYINT,
  s16 SMALLINT,
  i32 INT,
  f32 FLOAT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{{events}}', 'format' = 'json');
