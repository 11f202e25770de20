-- data: visits
-- partitions: 1
-- mode: streaming
-- known-difference: a late row. Flink's filesystem source has no watermark push-down, so its watermark follows each record (max - 2 s, emitted as soon as it moves 200 ms): c's row at 12:00:15 arrives after the watermark reached 12:00:17.999, its session [15, 18) is late, and c's session stays [14, 17). lowwater's replay emits a source's watermark on its periodic 200 ms arrival-time clock (Flink's push-down form, as for Kafka); the file spans 280 ms of arrival, so the row is not late and c's session is [14, 18). rows_dedup_session_clicks (no late row there) matches
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, page STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
INSERT INTO results
SELECT window_start, window_end, user_id, page FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id ORDER BY ts) AS rn
  FROM TABLE(SESSION(TABLE events PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '3' SECOND))
) WHERE rn = 1;
