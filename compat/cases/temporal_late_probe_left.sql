-- data: late
-- partitions: 1
-- mode: streaming
-- known-difference: Flink's filesystem source has no watermark push-down, so its WatermarkAssignerOperator emits a watermark right after any record that moves it more than pipeline.auto-watermark-interval (200 ms) past the last one emitted: the rates side reaches 25 s and the orders side 35 s mid-file, the EUR versions before 20 s are dropped at the join, and the late order 8 (EUR at 10:00:15, after the orders reached 10:00:40) finds none (LEFT: NULLs). lowwater emits a source's watermark only on its periodic 200 ms arrival-time clock (Flink's push-down form, as for Kafka); the whole file spans 80 ms of arrival, so no watermark reaches the join before the end and order 8 joins the version of 10:00:10 (rate 111). temporal_late_probe_after_watermark, the same rows after 200 ms of arrival, matches
CREATE TABLE results (order_id INT, currency STRING, rate INT, rate_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE TABLE rates_pk (currency STRING, rate INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (currency) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '{{rates_late}}', 'format' = 'json');
INSERT INTO results SELECT o.order_id, o.currency, r.rate, r.ts
FROM orders AS o LEFT JOIN rates_pk FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
