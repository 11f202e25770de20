//! An event-time temporal join stalled by a quiet versioned table, live on
//! the real broker (issue 36's incident): orders on 8 partitions joined
//! with a 4-partition rates topic whose partitions 2 and 3 never receive a
//! record, each rate changing once per simulated hour.
//!
//! 1. Without an idle timeout: no joined row while orders keep coming; the
//!    stall WARN and the API name the temporal join, its versioned side
//!    (table rates), a partition of rates that never had a record, and the
//!    probe rows waiting.
//! 2. Killed with kill -9 during the stall, after a checkpoint, and
//!    restarted from it with the fix the WARN names (the rates table's
//!    `scan.watermark.idle-timeout`, which holds no state) and at
//!    parallelism 3 instead of 2 (the join's waiting rows, versions and
//!    view deduplication regrouped): every order is joined with the rate
//!    valid at its time, exactly once in an exactly-once Kafka sink read
//!    with read_committed.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use rdkafka::producer::{BaseRecord, Producer};
use sonic_rs::JsonValueTrait;

mod common;
use common::kafka_jobs::consume_all;
use common::{create_topic, kafka_scratch, producer, sql_ts, Running, BOOTSTRAP};

const BASE: i64 = 1_757_808_000_000; // 2025-09-14 00:00:00 UTC
const HOUR: i64 = 3_600_000;
const CURRENCIES: [&str; 4] = ["EUR", "GBP", "USD", "JPY"];
/// Orders, one every 30 simulated seconds (4 simulated hours).
const ORDERS: i64 = 480;
/// Orders written after the restore (40 simulated minutes more).
const AFTER: i64 = 80;

/// The rate of `currency` (its index) from hour `h` on.
fn rate(h: i64, c: usize) -> i64 {
    100 + 10 * h + c as i64
}

fn order_time(i: i64) -> i64 {
    BASE + 60_000 + i * 30_000
}

fn currency_of(i: i64) -> usize {
    ((i / 8) % 4) as usize
}

/// The job, with `idle` set on the rates table when given.
fn job(dir: &Path, id: u32, idle: Option<&str>) -> std::path::PathBuf {
    let idle = idle.map_or(String::new(), |t| {
        format!(",\n  'scan.watermark.idle-timeout' = '{t}'")
    });
    // The fixed job also runs at another parallelism: the join's waiting
    // rows, versions and view deduplication move between subtasks.
    let parallelism = if idle.is_empty() { 2 } else { 3 };
    let sql = format!(
        "SET 'pipeline.name' = 'convert-{id}';
SET 'parallelism.default' = '{parallelism}';
SET 'execution.checkpointing.interval' = '500 ms';
SET 'execution.checkpointing.dir' = '{ck}';
CREATE TABLE orders (
  order_id BIGINT, currency STRING, amount INT, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'orders-{id}',
  'properties.bootstrap.servers' = '{BOOTSTRAP}', 'properties.group.id' = 'convert-{id}',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE rates (
  currency STRING, rate INT, update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'rates-{id}',
  'properties.bootstrap.servers' = '{BOOTSTRAP}', 'properties.group.id' = 'convert-{id}',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json'{idle});
CREATE VIEW versioned_rates AS
SELECT currency, rate, update_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rownum
  FROM rates)
WHERE rownum = 1;
CREATE TABLE converted (
  order_id BIGINT, currency STRING, rate INT, total BIGINT, order_time TIMESTAMP(3)
) WITH ('connector' = 'kafka', 'topic' = 'converted-{id}',
  'properties.bootstrap.servers' = '{BOOTSTRAP}', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'conv-{id}');
INSERT INTO converted
SELECT o.order_id, o.currency, r.rate, CAST(o.amount AS BIGINT) * r.rate, o.order_time
FROM orders AS o
JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
",
        ck = dir.join("ck").display()
    );
    let path = dir.join(if idle.is_empty() {
        "job.sql"
    } else {
        "fixed.sql"
    });
    std::fs::write(&path, sql).expect("write the job");
    path
}

/// Rates: every currency's version at hours 0..=5, EUR and GBP on
/// partition 0, USD and JPY on partition 1; partitions 2 and 3 get none.
fn produce_rates(topic: &str) {
    let p = producer();
    for h in 0..=5 {
        for (c, cur) in CURRENCIES.iter().enumerate() {
            let payload = format!(
                r#"{{"currency":"{cur}","rate":{},"update_time":"{}"}}"#,
                rate(h, c),
                sql_ts(BASE + h * HOUR)
            );
            let r = BaseRecord::to(topic)
                .partition((c / 2) as i32)
                .key(*cur)
                .payload(&payload);
            p.send(r).expect("send a rate");
        }
    }
    p.flush(Duration::from_secs(10)).expect("flush rates");
}

/// Orders `range`, partition `i % 8`, `pause` apart (the traffic that
/// keeps coming while the join stalls).
fn produce_orders(topic: &str, range: std::ops::Range<i64>, pause: Duration) {
    let p = producer();
    for i in range {
        let payload = format!(
            r#"{{"order_id":{i},"currency":"{}","amount":{},"order_time":"{}"}}"#,
            CURRENCIES[currency_of(i)],
            1 + i % 50,
            sql_ts(order_time(i))
        );
        let r = BaseRecord::<(), String>::to(topic)
            .partition((i % 8) as i32)
            .payload(&payload);
        p.send(r).expect("send an order");
        p.poll(Duration::ZERO);
        std::thread::sleep(pause);
    }
    p.flush(Duration::from_secs(10)).expect("flush orders");
}

/// `/api/v1/watermarks` of the job, parsed.
fn live(job: &Running) -> sonic_rs::Value {
    sonic_rs::from_str(&job.get("/api/v1/watermarks")).expect("JSON")
}

#[test]
fn a_quiet_versioned_table_stalls_the_join_and_its_fix_restores_every_order_exactly_once() {
    let (dir, id) = kafka_scratch("join");
    let (orders, rates, out) = (
        format!("orders-{id}"),
        format!("rates-{id}"),
        format!("converted-{id}"),
    );
    create_topic(&orders, 8);
    create_topic(&rates, 4);
    create_topic(&out, 1);
    produce_rates(&rates);
    let stalled = job(&dir, id, None);
    let s = |p: &Path| p.to_str().expect("utf-8 path").to_string();
    let mut run = Running::start(&["run", &s(&stalled), "--stall-threshold", "1 s"]);
    // Before any stall: the versioned table's empty partitions are named.
    let empty = run
        .wait_for_line("hold no record", Duration::from_secs(10))
        .expect("a WARN at start names the empty partitions of rates");
    assert!(
        empty.contains(&format!("partition(s) 2, 3 of rates-{id}"))
            && empty.contains("'scan.watermark.idle-timeout' on table rates"),
        "{empty}"
    );
    // Orders keep coming for about 4 s while the join waits.
    std::thread::scope(|scope| {
        let traffic = scope.spawn(|| produce_orders(&orders, 0..ORDERS, Duration::from_millis(8)));
        let warn = run
            .wait_for_line("temporal join waits", Duration::from_secs(30))
            .expect("a stall WARN names the temporal join");
        assert!(
            warn.contains("versioned side, table rates")
                && warn.contains(&format!("of rates-{id}"))
                && (warn.contains("partition 2 ") || warn.contains("partition 3 "))
                && warn.contains("probe row(s) of orders wait for it"),
            "{warn}"
        );
        eprintln!("{warn}");
        traffic.join().expect("orders produced");
    });
    // Every record read, the rows waiting counted, and a checkpoint taken
    // after that; no joined row.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut checkpoint = None;
    loop {
        let l = live(&run);
        let read = l["totals"]["records_in"].as_u64().unwrap_or(0);
        let insert = &l["inserts"][0];
        let waiting = insert["open_windows"].as_u64().unwrap_or(0);
        let done = l["checkpoints"]["completed"].as_u64().unwrap_or(0);
        if read == ORDERS as u64 + 24 && waiting == ORDERS as u64 {
            let reason = insert["stall"]["reason"].as_str().unwrap_or_default();
            assert!(reason.contains("versioned side, table rates"), "{reason}");
            // /metrics: the versioned side holds the join, within it a
            // partition of rates without records; the rows waiting.
            let m = run.scrape();
            let sample = |name: &str, side: Option<&str>| {
                m.samples
                    .iter()
                    .find(|x| {
                        x.metric == name && side.is_none_or(|s| x.labels.get("side") == Some(s))
                    })
                    .map(common::value)
            };
            assert_eq!(
                sample("lowwater_join_input_holding", Some("versioned side")),
                Some(1.0)
            );
            assert_eq!(
                sample("lowwater_join_input_holding", Some("probe side")),
                Some(0.0)
            );
            assert_eq!(
                sample("lowwater_join_waiting_rows", None),
                Some(ORDERS as f64)
            );
            let holding: Vec<String> = m
                .samples
                .iter()
                .filter(|x| x.metric == "lowwater_partition_holding" && common::value(x) == 1.0)
                .map(|x| format!("{:?}", x.labels))
                .collect();
            assert!(
                holding.len() == 1 && holding[0].contains(&format!("rates-{id}")),
                "{holding:?}"
            );
            match checkpoint {
                None => checkpoint = Some(done),
                // A checkpoint completed after everything was read.
                Some(c) if done > c => break,
                Some(_) => {}
            }
        }
        assert!(
            Instant::now() < deadline,
            "the job did not read, hold and checkpoint every order: {l:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let log = run.kill9();
    assert!(
        consume_all(&out, 1).is_empty(),
        "no joined row during the stall"
    );
    assert!(log.contains("temporal join waits"), "{log}");
    // The fix: the rates table goes idle after 1 s; the state is restored.
    let fixed = job(&dir, id, Some("1 s"));
    let run = Running::start(&["run", &s(&fixed), "--stall-threshold", "1 s"]);
    // More orders after the restore: each must meet its currency's
    // versions, which moved to the subtask its key goes to now.
    produce_orders(&orders, ORDERS..ORDERS + AFTER, Duration::ZERO);
    // Closing orders, one per partition, move every partition's watermark
    // past every order above.
    let closing = 1_000_000i64..1_000_008;
    let p = producer();
    for i in closing {
        let payload = format!(
            r#"{{"order_id":{i},"currency":"EUR","amount":1,"order_time":"{}"}}"#,
            sql_ts(BASE + 5 * HOUR)
        );
        let r = BaseRecord::<(), String>::to(&orders)
            .partition((i % 8) as i32)
            .payload(&payload);
        p.send(r).expect("send a closing order");
    }
    p.flush(Duration::from_secs(10)).expect("flush");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut rows = consume_all(&out, 1);
    while rows.len() < (ORDERS + AFTER) as usize && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(300));
        rows = consume_all(&out, 1);
    }
    let log = run.stop();
    assert!(
        log.contains("restoring checkpoint")
            && log.contains("parallelism.default was 2, now 3")
            && log.contains("table rates: ")
            && log.contains("idle-timeout was disabled, now 1s"),
        "{log}"
    );
    let rows = consume_all(&out, 1);
    let mut seen: BTreeMap<i64, i64> = BTreeMap::new();
    for r in &rows {
        let v: sonic_rs::Value = sonic_rs::from_str(r).expect("a JSON row");
        let order = v["order_id"].as_i64().expect("order_id");
        let got = v["rate"].as_i64().expect("rate");
        assert!(order < ORDERS + AFTER, "a closing order was joined: {r}");
        let want = rate((order_time(order) - BASE) / HOUR, currency_of(order));
        assert_eq!(got, want, "order {order} joined the wrong version: {r}");
        *seen.entry(order).or_insert(0) += 1;
    }
    assert_eq!(
        seen.len(),
        (ORDERS + AFTER) as usize,
        "every order joined: {log}"
    );
    assert!(seen.values().all(|&n| n == 1), "exactly once");
    eprintln!(
        "{} orders joined exactly once after the restore",
        seen.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
