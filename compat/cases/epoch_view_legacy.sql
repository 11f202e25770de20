-- data: epoch
-- partitions: 3
CREATE TABLE results (ws TIMESTAMP(3), k STRING, total INT, label STRING) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');
CREATE VIEW signed AS SELECT k, v, ts, CASE WHEN v < 0 THEN 'neg' ELSE 'pos' END AS sign FROM events;
INSERT INTO results SELECT TUMBLE_START(ts, INTERVAL '5' SECOND), k, SUM(v), MAX(sign)
FROM signed
GROUP BY TUMBLE(ts, INTERVAL '5' SECOND), k;
